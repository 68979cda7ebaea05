/**
 * The smallest local-backend checkpoint the CLI tests train from: a 1-layer GPT of width 32 with
 * weights drawn at std 0.05, one train worker. `maxSeqLen` must hold the test's longest prompt and
 * answer in bytes (a tool agent's system prompt and tool schemas need thousands).
 */
import { LocalBackend } from "../backends/local/backend.js";

export async function saveTinyLocalCheckpoint(dir: string, maxSeqLen = 96): Promise<void> {
  const backend = await LocalBackend.create({
    model: { dModel: 32, nLayers: 1, nHeads: 2, maxSeqLen },
    initStd: 0.05,
    trainWorkers: 1,
  });
  await backend.save(dir);
  await backend.close();
}
