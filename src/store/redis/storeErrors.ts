// One rule for every Redis engine: a reply that means "this server cannot serve right now" or no reply at all
// becomes StoreUnavailableError (callers fail open or say the store is down); any other error reply is a bug
// in our script or command and is let through to show.
import { ErrorReply } from 'redis';
import { StoreUnavailableError } from '../../errors.js';

const transientReply = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|READONLY|NOREPLICAS)\b/;

export function toStoreError(err: unknown): unknown {
  if (err instanceof ErrorReply && !transientReply.test(err.message)) return err;
  return new StoreUnavailableError(err);
}
