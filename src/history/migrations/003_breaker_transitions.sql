-- Every state change of a shared circuit breaker. The instance whose compare-and-set wrote a transition
-- records it, so each appears once for the whole fleet; the primary key makes a retried insert harmless.
CREATE TABLE IF NOT EXISTS breaker_transitions (
  channel     text        NOT NULL,
  -- '' for the channel's own breaker, else the dims series id (method=card).
  scope       text        NOT NULL DEFAULT '',
  at          timestamptz NOT NULL,
  from_state  text        NOT NULL CHECK (from_state IN ('closed', 'open', 'half-open')),
  to_state    text        NOT NULL CHECK (to_state IN ('closed', 'open', 'half-open')),
  mode        text        NOT NULL CHECK (mode IN ('auto', 'force-open', 'force-closed')),
  PRIMARY KEY (channel, scope, at, to_state)
);

CREATE INDEX IF NOT EXISTS breaker_transitions_at_idx ON breaker_transitions (at);
