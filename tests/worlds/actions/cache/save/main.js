// actions/cache/save stand-in: tests/worlds/actions/standin.py cache-save, with the INPUT_* variables.
const { spawnSync } = require("child_process");
const r = spawnSync("python3", [process.env.STANDIN, "cache-save"], { stdio: "inherit" });
process.exit(r.status === null ? 1 : r.status);
