// The demo's incident, told end to end: two card acquirers the router chooses between for every card payment,
// and on a schedule the first of them fails, deeper by the second, then recovers. The router moves the payments away (the
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

/** The failing acquirer's success over an incident: `fromSuccess` at its start, down to `toSuccess` after `deepensOverMs`. */
export interface IncidentShape {
  fromSuccess: number;
  toSuccess: number;
  deepensOverMs: number;
}

/**
 * An issuer outage that deepens. The router drains the acquirer after a dozen failures, so the alert first
 * fires on those (its newest 20 or 60 outcomes, docs/alerts.md): at 40 % they lie below Warn or Major, never
 * below Critical (10 successes of 60 or fewer: once in 30,000 draws). The GBP payments it alone takes keep
 * failing, 2 a second, deeper by the second; once the healthy minute before the incident has left the
 * alert's 1-minute window, that window holds about 120 of them at 10–25 % and lies below Critical: the
 * escalation, about a minute in, in every run (test/cli/demo.test.ts runs it over several seeds).
 */
export const defaultShape: IncidentShape = { fromSuccess: 0.4, toSuccess: 0.1, deepensOverMs: 30_000 };

/** The success drawn for an outcome `intoMs` after the incident began. */
export function incidentSuccessAt(shape: IncidentShape, intoMs: number): number {
  if (intoMs >= shape.deepensOverMs) return shape.toSuccess;
  return shape.fromSuccess + ((shape.toSuccess - shape.fromSuccess) * intoMs) / shape.deepensOverMs;
}

export interface StoryOptions {
  /** The acquirers routed between, the failing one first; both must be channels of the traffic. */
  routed: readonly [string, string];
  /** Each acquirer's success in normal times. */
  success: Record<string, number>;
  schedule: StorySchedule;
  shape?: IncidentShape;
  /**
   * The currencies each acquirer takes; a payment goes only to those that take its currency (all of them when
   * it has none or an acquirer is not listed). Payments one acquirer alone takes stay on it through its outage.
   */
  currencies?: Record<string, readonly string[]>;
  /** Clock time the schedule counts from. */
  startMs: number;
  seed: number;
  route(request: RouteRequest): Promise<RouteDecision>;
}

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

  const shape = options.shape ?? defaultShape;
  const takes = (channel: string, currency: string | undefined) => currency === undefined || !options.currencies?.[channel] || options.currencies[channel]!.includes(currency);

  async function channelFor(requestId: string, currency: string | undefined): Promise<string> {
    const known = chosen.get(requestId);
    if (known) return known;
    const candidates = routed.filter((channel) => takes(channel, currency));
    const decision = await options.route({ candidates: candidates.length ? candidates : [...routed], requestId });
    chosen.set(requestId, decision.channel);
    if (chosen.size > rememberedRequests) chosen.delete(chosen.keys().next().value as string);
    return decision.channel;
  }

  function outcomeOn(o: Outcome, channel: string): Outcome {
    if (o.status === 'pending') return { ...o, channel };
    const incident = incidentAt(o.at);
    const failing = incident !== undefined && incident.channel === channel;
    const ok = random() < (failing ? incidentSuccessAt(shape, o.at - incident.from) : (options.success[channel] ?? 0.97));
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
        out.push(outcomeOn({ ...o, requestId }, await channelFor(requestId, o.dims?.currency)));
      }
      return out;
    },
  };
}

/** The demo's sink: the story's routing in front of the pulse's recording. */
export function storySink(story: DemoStory, record: (outcomes: Outcome[]) => Promise<RecordManyResult>) {
  return async (outcomes: Outcome[]) => record(await story.routeBatch(outcomes));
}
