// actions/cache stand-in, save (post, when the job ends): tests/worlds/actions/standin.py cache-save.
const { spawnSync } = require("child_process");
const r = spawnSync("python3", [process.env.STANDIN, "cache-save"], { stdio: "inherit" });
process.exit(r.status === null ? 1 : r.status);
