// Keys of stream ingestion (docs/ingestion.md). A gateway XADDs to one of `shards` outcome streams; each
// stream has its own hash tag, so on Redis Cluster the shards spread over the nodes, and its dead-letter
// stream shares that tag, so a dead letter and the ack of its original are one atomic script call.
// `outcomes:<n>` cannot meet a channel's keys: those always continue after the tag (`{<channel>}:…`).
import { namespacePrefix } from './index.js';

/** `<namespace>:{outcomes:<shard>}`: the stream a gateway writes outcomes of shard `shard` to. */
export function outcomeStreamKey(namespace: string, shard: number): string {
  return `${namespacePrefix(namespace)}{outcomes:${shard}}`;
}

/** `<namespace>:{outcomes:<shard>}:dead`: entries of that shard that could not be accepted, with the reason. */
export function deadLetterStreamKey(namespace: string, shard: number): string {
  return `${outcomeStreamKey(namespace, shard)}:dead`;
}
