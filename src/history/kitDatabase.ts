// Opens the kit's authority from `createPulse({ kitDatabase })`: a URL is connected to (and closed with the
// pulse), a client is used as given (its owner closes it). Either way the migrations run first, so the tables
// and the fence sequence exist before the first mark is taken.
import { PayPulseError } from '../errors.js';
import { migrate } from './migrate.js';
import { connectPostgres } from './postgresClient.js';
import type { SqlClient } from '../store/ports/sqlClient.js';
import { createPostgresKitAuthority, type KitAuthority } from '../store/postgres/kitAuthority.js';

export interface OpenedKitAuthority {
  authority: KitAuthority;
  close(): Promise<void>;
}

function clientOf(database: string | SqlClient): { db: SqlClient; owned: boolean } {
  if (typeof database === 'string') {
    if (!/^postgres(ql)?:\/\//.test(database)) {
      throw new PayPulseError('PP_ERR_CONFIG', 'kitDatabase must be a postgres:// or postgresql:// URL, or a SQL client');
    }
    return { db: connectPostgres(database), owned: true };
  }
  if (typeof database?.query !== 'function' || typeof database.transaction !== 'function') {
    throw new PayPulseError('PP_ERR_CONFIG', 'kitDatabase must be a postgres:// or postgresql:// URL, or a SQL client');
  }
  return { db: database, owned: false };
}

export async function openKitDatabase(database: string | SqlClient | undefined): Promise<OpenedKitAuthority | undefined> {
  if (database === undefined) return undefined;
  const { db, owned } = clientOf(database);
  const close = async () => {
    if (owned) await db.close();
  };
  try {
    await migrate(db);
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  return { authority: createPostgresKitAuthority(db), close };
}
