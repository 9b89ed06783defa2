-- Per-minute counts of each channel, copied from the live store (pulse.minutes) by the snapshot job.
-- The live store keeps about 2 hours of minute counts (docs/storage.md); this table is the long-term record
-- for trends, channel quality reviews and reconciliation, which look back weeks.
CREATE TABLE IF NOT EXISTS minute_snapshots (
  channel     text        NOT NULL,
  minute      timestamptz NOT NULL,
  success     integer     NOT NULL CHECK (success >= 0),
  failure     integer     NOT NULL CHECK (failure >= 0),
  started     integer     NOT NULL CHECK (started >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel, minute)
);

-- "Every channel's last hour" (the dashboard back-fill) reads by time across channels.
CREATE INDEX IF NOT EXISTS minute_snapshots_minute_idx ON minute_snapshots (minute);
