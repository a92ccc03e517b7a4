// Example webhook receiver: `RECEIVER_TOKEN=... node dist/examples/receiver/index.js [port]`.
// Point a generic notification configuration with the same token at the URL it prints.
import { startReceiver } from "./server";

async function main(): Promise<void> {
  const token = process.env.RECEIVER_TOKEN;
  if (!token) throw new Error("set RECEIVER_TOKEN to the notification configuration's token");
  const receiver = await startReceiver({
    token,
    port: Number(process.argv[2] ?? 0),
    onNotification(n) {
      if (n.kind === "run") {
        const [first] = n.payload.notifications;
        console.log(`${first.trigger}: ${n.payload.run_id} is ${first.run_status} (${n.payload.workspace_name})`);
      } else if (n.kind === "assessment") {
        const r = n.payload.details.new_assessment_result;
        console.log(`${n.payload.trigger}: ${n.payload.details.workspace_name} drifted=${r.drifted} checks_failed=${r.checks_failed}`);
      } else {
        console.log(`verification from ${n.payload.notification_configuration_id}`);
      }
    },
    onRefused: (reason, status) => console.warn(`refused (${status}): ${reason}`),
  });
  console.log(`listening on ${receiver.url}`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((e) => { console.error(e); process.exit(1); });
