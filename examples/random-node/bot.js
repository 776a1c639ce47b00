// A random bot for every Card Arena game, in JavaScript (runtime "node", built-in modules only).
// Protocol: one JSON object per line on stdin, one per line on stdout (docs/protocol.md).
"use strict";
const readline = require("readline");

const input = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "ready" });
  } else if (message.type === "act") {
    const legal = message.legal;
    send({ id: message.id, action: legal[Math.floor(Math.random() * legal.length)] });
  } else if (message.type === "over") {
    input.close();
  }
});
