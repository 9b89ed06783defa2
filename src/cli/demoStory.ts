// The demo's incident, told end to end: two card acquirers the router chooses between for every card payment,
// and on a schedule the first of them fails hard, then recovers. The router moves the payments away (the
// routing panel shows the share leave, the breaker opens), the alerts fire, escalate and resolve, and the
// notifications say what routing did. The schedule is counted from the demo's start so a test can run it on
// virtual time and a newcomer sees the first incident a minute after `npm start`.
import type { Outcome, RecordManyResult } from '../types.js';
import type { RouteDecision, RouteRequest } from '../routing/types.js';
import { pick, seededRandom } from '../sim/random.js';

export interface StorySchedule {
  /** The first incident starts this long after the demo does. Default 60 s. */
  firstAfterMs: number;
  /** One incident starts this often. Default 6 min: each resolves before the next. */
  everyMs: number;
  /** How long the failing acquirer fails. Default 120 s. */
  lastsMs: number;
}

export const defaultSchedule: StorySchedule = { firstAfterMs: 60_000, everyMs: 360_000, lastsMs: 120_000 };

export interface StoryOptions {
  /** The acquirers routed between, the failing one first; both must be channels of the traffic. */
  routed: readonly [string, string];
  /** Each acquirer's success in normal times. */
  success: Record<string, number>;
  schedule: StorySchedule;
  /** Clock time the schedule counts from. */
  startMs: number;
  seed: number;
  route(request: RouteRequest): Promise<RouteDecision>;
}

/** The failing acquirer's success during an incident: an issuer outage, not a slow fade. */
const incidentSuccess = 0.3;
/** The incident's failures are mostly the issuer's: the codes the rows and the notifications show. */
const incidentCodes: Array<[string, number]> = [['issuer_unavailable', 6], ['do_not_honor', 3], ['insufficient_funds', 1]];
const usualCodes: Array<[string, number]> = [['insufficient_funds', 4], ['do_not_honor', 3], ['issuer_unavailable', 2], ['fraud_suspected', 1]];
/** Requests remembered between their `pending` record and their outcome; older ones are forgotten first. */
const rememberedRequests = 20_000;

/** `stripe-card-8r8k` → `card-8r8k`: the simulator's sequence is unique across its channels. */
function paymentId(simulated: string): string {
  return `card-${simulated.slice(simulated.lastIndexOf('-') + 1)}`;
}

export interface DemoStory {
  /** The incident in force at `at`, if any. */
  incidentAt(at: number): { channel: string; from: number; to: number } | undefined;
  /** Routes each card payment of a batch and draws its outcome from the channel chosen. */
  routeBatch(outcomes: Outcome[]): Promise<Outcome[]>;
}

export function createDemoStory(options: StoryOptions): DemoStory {
  const { routed, schedule, startMs } = options;
  const random = seededRandom(options.seed);
  const chosen = new Map<string, string>();

  function incidentAt(at: number) {
    const since = at - startMs - schedule.firstAfterMs;
    if (since < 0) return undefined;
    const from = startMs + schedule.firstAfterMs + Math.floor(since / schedule.everyMs) * schedule.everyMs;
    return at < from + schedule.lastsMs ? { channel: routed[0], from, to: from + schedule.lastsMs } : undefined;
  }

  async function channelFor(requestId: string): Promise<string> {
    const known = chosen.get(requestId);
    if (known) return known;
    const decision = await options.route({ candidates: [...routed], requestId });
    chosen.set(requestId, decision.channel);
    if (chosen.size > rememberedRequests) chosen.delete(chosen.keys().next().value as string);
    return decision.channel;
  }

  function outcomeOn(o: Outcome, channel: string): Outcome {
    if (o.status === 'pending') return { ...o, channel };
    const failing = incidentAt(o.at)?.channel === channel;
    const ok = random() < (failing ? incidentSuccess : (options.success[channel] ?? 0.97));
    const { code: _code, ...rest } = o;
    return ok ? { ...rest, channel, status: 'success' } : { ...rest, channel, status: 'failure', code: pick(random, failing ? incidentCodes : usualCodes) };
  }

  return {
    incidentAt,
    async routeBatch(outcomes) {
      const out: Outcome[] = [];
      // In order: a payment's `pending` record comes before its outcome and decides its channel.
      for (const o of outcomes) {
        if (!routed.includes(o.channel)) {
          out.push(o);
          continue;
        }
        // The simulator named the payment after the acquirer it drew; the router chooses it now.
        const requestId = paymentId(o.requestId);
        out.push(outcomeOn({ ...o, requestId }, await channelFor(requestId)));
      }
      return out;
    },
  };
}

/** The demo's sink: the story's routing in front of the pulse's recording. */
export function storySink(story: DemoStory, record: (outcomes: Outcome[]) => Promise<RecordManyResult>) {
  return async (outcomes: Outcome[]) => record(await story.routeBatch(outcomes));
}
