// Loopback relay for `--agent-network gateway-only` (runs inside the agent's network namespace, which has
// only a loopback interface): for each <port> <socket> pair, listens on 127.0.0.1:<port> and forwards every
// connection to the Unix socket, behind which the launcher connects to the gateway (or an allowed
// service). Writes <ready file> once every port listens.
// Usage: node loopback-relay.mjs <ready> <port> <socket> [<port> <socket> ...]
import { writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";

const [readyFile, ...pairs] = process.argv.slice(2);
let pending = pairs.length / 2;
for (let index = 0; index + 1 < pairs.length; index += 2) {
  const socketPath = pairs[index + 1];
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
  });
  server.listen(Number(pairs[index]), "127.0.0.1", () => {
    pending--;
    if (pending === 0) writeFileSync(readyFile, "");
  });
}
