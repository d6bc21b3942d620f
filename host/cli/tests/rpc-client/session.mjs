// An RPC conformance run driven by pi 1.6's own RpcClient (from the installed reference package,
// PI_RPC_CLIENT) against our pi (PI_BIN, through pi-shim.mjs) and the mock LLM the Rust test
// (host/cli/tests/all/cli_rpc_client.rs) scripted. A whole session with the client's own methods;
// every failed check is collected, a short transcript is printed, and the exit code says whether
// all held.
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const { RpcClient } = await import(pathToFileURL(process.env.PI_RPC_CLIENT).href);
const here = path.dirname(fileURLToPath(import.meta.url));

const failures = [];
const transcript = [];
const events = [];

function check(condition, what) {
	if (!condition) failures.push(what);
}

const client = new RpcClient({ cliPath: path.join(here, "pi-shim.mjs"), cwd: process.env.PI_CWD });
client.onEvent((event) => events.push(event));

/** Resolves with the first event from now on that satisfies `pred`. */
function nextEvent(pred, what, timeout = 20000) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			stop();
			reject(new Error(`timed out waiting for ${what}`));
		}, timeout);
		const stop = client.onEvent((event) => {
			if (pred(event)) {
				clearTimeout(timer);
				stop();
				resolve(event);
			}
		});
	});
}

/** Runs one client method, recording it (and its error) in the transcript. */
async function call(name, ...args) {
	try {
		const result = await client[name](...args);
		transcript.push(`${name} -> ${summary(result)}`);
		return result;
	} catch (error) {
		transcript.push(`${name} -> error: ${error.message}`);
		throw error;
	}
}

function summary(value) {
	if (value === undefined) return "ok";
	const text = JSON.stringify(value);
	return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

/** Events since `from`, by type. */
function since(from, type) {
	return events.slice(from).filter((e) => e.type === type);
}

async function session() {
	await client.start();

	// 1. A prompt whose reply calls a tool.
	let from = events.length;
	let settled = nextEvent((e) => e.type === "agent_settled", "settle after the tool prompt");
	check((await call("prompt", "run a tool")) === "started", "prompt disposition started");
	await settled;
	const toolcallStart = since(from, "message_update").find(
		(e) => e.assistantMessageEvent.type === "toolcall_start",
	);
	check(toolcallStart?.assistantMessageEvent.id === "call_1", "toolcall_start.id");
	check(toolcallStart?.assistantMessageEvent.toolName === "bash", "toolcall_start.toolName");
	check(
		since(from, "message_update").every((e) => e.usage && typeof e.usage.output === "number"),
		"message_update.usage",
	);
	check(since(from, "message_update").every((e) => e.message === undefined), "message_update has no message");
	const toolEnd = since(from, "tool_execution_end")[0];
	check(typeof toolEnd?.durationMs === "number", "tool_execution_end.durationMs");
	const ends = since(from, "message_end").map((e) => e.message);
	const assistant = ends.find((m) => m.role === "assistant");
	check(typeof assistant?.durationMs === "number", "assistant durationMs");
	check(typeof assistant?.thinkingLevel === "string", "assistant thinkingLevel");
	check(typeof ends.find((m) => m.role === "toolResult")?.durationMs === "number", "toolResult durationMs");
	check(since(from, "agent_settled")[0]?.aborted === false, "agent_settled.aborted false");

	// 2. Steer and follow-up while a tool runs.
	from = events.length;
	settled = nextEvent((e) => e.type === "agent_settled", "settle after steering");
	const running = nextEvent((e) => e.type === "tool_execution_start", "the slow tool");
	check((await call("prompt", "steer me")) === "started", "second prompt started");
	await running;
	check((await call("steer", "steer message")) === "queued", "steer disposition queued");
	check((await call("followUp", "follow-up message")) === "queued", "followUp disposition queued");
	await settled;
	const users = since(from, "message_start")
		.map((e) => e.message)
		.filter((m) => m.role === "user")
		.map((m) => (typeof m.content === "string" ? m.content : m.content[0]?.text));
	check(users.includes("steer message"), "steer delivered");
	check(users.includes("follow-up message"), "follow-up delivered");

	// 3. A prompt queued behind a hanging request, the queue cleared, then abort.
	from = events.length;
	settled = nextEvent((e) => e.type === "agent_settled", "settle after abort");
	const streaming = nextEvent((e) => e.type === "message_start" && e.message.role === "assistant", "hang");
	check((await call("prompt", "hang")) === "started", "hanging prompt started");
	await streaming;
	check((await call("prompt", "queued later", undefined, "followUp")) === "queued", "prompt while streaming queued");
	const cleared = await call("clearQueue");
	check(cleared.followUp?.[0] === "queued later" && cleared.steering?.length === 0, "clear_queue returns the queue");
	await call("abort");
	const abortedSettle = await settled;
	check(abortedSettle.aborted === true, "agent_settled.aborted after abort");

	// 4. Manual compaction, then the stats before and after the next reply.
	from = events.length;
	const compaction = await call("compact");
	check(typeof compaction.estimatedTokensAfter === "number", "compact estimatedTokensAfter");
	check(typeof compaction.usage?.output === "number", "compact usage");
	const compactionEnd = since(from, "compaction_end")[0];
	check(typeof compactionEnd?.result?.estimatedTokensAfter === "number", "compaction_end.result.estimatedTokensAfter");
	check(typeof compactionEnd?.result?.usage === "object", "compaction_end.result.usage");
	let stats = await call("getSessionStats");
	check(stats.contextUsage?.contextWindow === 200000, "contextUsage.contextWindow");
	check(stats.contextUsage?.tokens === null && stats.contextUsage?.percent === null, "contextUsage null after compaction");
	await client.promptAndWait("after compaction");
	transcript.push("promptAndWait -> settled");
	stats = await call("getSessionStats");
	check(typeof stats.contextUsage?.tokens === "number" && stats.contextUsage.tokens > 0, "contextUsage.tokens");
	check(typeof stats.contextUsage?.percent === "number", "contextUsage.percent");

	// 5. Tree and entries.
	const { tree, leafId } = await call("getTree");
	check(Array.isArray(tree) && tree.length > 0, "get_tree has roots");
	const walk = (nodes) => nodes.flatMap((n) => [n, ...walk(n.children)]);
	const nodes = walk(tree);
	check(nodes.every((n) => typeof n.entry?.id === "string" && typeof n.entry?.type === "string"), "tree nodes carry entries");
	check(nodes.some((n) => n.entry.id === leafId), "tree holds the leaf");
	check(nodes.some((n) => n.entry.type === "compaction"), "tree holds the compaction entry");
	const all = await call("getEntries");
	check(all.entries.length === nodes.length && all.leafId === leafId, "get_entries lists every entry");
	const later = await call("getEntries", all.entries[0].id);
	check(later.entries.length === all.entries.length - 1, "get_entries since");
	try {
		await call("getEntries", "no-such-entry");
		check(false, "get_entries with an unknown since fails");
	} catch (error) {
		check(error.message === "Entry not found: no-such-entry", `unknown since message: ${error.message}`);
	}

	// 6. Fork, clone, switch back.
	const original = (await call("getState")).sessionFile;
	const forkable = await call("getForkMessages");
	check(forkable.length > 0, "fork messages");
	const fork = await call("fork", forkable[0].entryId);
	check(fork.cancelled === false && fork.text === forkable[0].text, "fork answer");
	const forked = (await call("getState")).sessionFile;
	check(forked !== original, "fork opens a new file");
	check((await call("clone")).cancelled === false, "clone answer");
	check((await call("switchSession", original)).cancelled === false, "switch answer");
	check((await call("getState")).sessionFile === original, "switched back");
	await call("getMessages");
	await call("getCommands");
}

let crashed;
try {
	await session();
} catch (error) {
	crashed = error;
	failures.push(`client error: ${error.message}`);
} finally {
	await client.stop();
}
const kinds = [...new Set(events.map((e) => e.type))];
console.log(`commands: ${transcript.length}`);
for (const line of transcript) console.log(`  ${line}`);
console.log(`events (${events.length}): ${kinds.join(", ")}`);
if (failures.length > 0) {
	console.log(`FAILED ${failures.length}:`);
	for (const failure of failures) console.log(`  - ${failure}`);
	if (crashed) console.log(crashed.stack);
	process.exit(1);
}
console.log("all checks passed");
