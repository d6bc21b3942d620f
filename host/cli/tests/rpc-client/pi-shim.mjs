// pi 1.6's RpcClient starts `node <cliPath> --mode rpc …`: this cliPath runs the pi binary named
// by PI_BIN in its place, on the same stdin/stdout/stderr, and passes signals on to it.
import { spawn } from "node:child_process";

const child = spawn(process.env.PI_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
	process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
