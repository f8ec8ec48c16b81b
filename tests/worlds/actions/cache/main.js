// actions/cache stand-in, restore (main): tests/worlds/actions/standin.py cache-restore, with the INPUT_* variables.
const { spawnSync } = require("child_process");
const r = spawnSync("python3", [process.env.STANDIN, "cache-restore"], { stdio: "inherit" });
process.exit(r.status === null ? 1 : r.status);
