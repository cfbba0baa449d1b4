import JobdCalendar

/// jobd's tables in the fleet's database, created and migrated by jobd itself. Each migration runs
/// once, in order, in one transaction under an advisory lock (so nodes starting together migrate
/// once); `schema_version` records the versions applied. Everything lives in one schema (`Schema=`,
/// `jobd` by default), which the role must own or have `CREATE` and `USAGE` on, and nothing else.
package enum FleetSchema {
    /// The version this jobd writes; a database at a higher version is refused (an older jobd
    /// must not write to tables it does not know).
    package static var version: Int { migrations.count }

    /// The statements of each version, `{schema}` standing for the schema's name.
    static let migrations: [[String]] = [
        [
            // Each jobd that ran: its node, its instance (one start of jobd), and its last heartbeat.
            """
            CREATE TABLE {schema}.nodes (
                node text NOT NULL,
                instance text NOT NULL,
                started_at timestamptz NOT NULL DEFAULT now(),
                heartbeat_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (node, instance)
            )
            """,
            // One row per run of an elapse: the primary key is the guarantee that one node claims it.
            """
            CREATE TABLE {schema}.claims (
                job text NOT NULL,
                elapse timestamptz NOT NULL,
                attempt integer NOT NULL,
                node text NOT NULL,
                instance text NOT NULL,
                run_id text NOT NULL,
                claimed_at timestamptz NOT NULL DEFAULT now(),
                lease_until timestamptz NOT NULL,
                ended_at timestamptz,
                result text,
                lost_at timestamptz,
                lost_by text,
                PRIMARY KEY (job, elapse, attempt)
            )
            """,
            "CREATE INDEX claims_open ON {schema}.claims (lease_until) WHERE ended_at IS NULL AND lost_at IS NULL",
        ],
        [
            // Version 2 (fencing): a run recorded lost keeps `result = 'lost'`; when its node hears
            // of its end, the real end goes here (the audit compares it with its retry's times).
            "ALTER TABLE {schema}.claims ADD COLUMN run_ended_at timestamptz, ADD COLUMN run_result text",
        ],
        [
            // Version 3 (fencing tokens): each claim takes the next number of one sequence, so a
            // later claim (a retry, another node's after a lease lapsed) always holds a higher
            // token; the run gets it as JOBD_FENCE. Claims made before have none.
            "CREATE SEQUENCE {schema}.fence_tokens AS bigint",
            "ALTER TABLE {schema}.claims ADD COLUMN fence bigint",
            "ALTER TABLE {schema}.claims ALTER COLUMN fence SET DEFAULT nextval('{schema}.fence_tokens')",
        ],
    ]

    /// The statements of `migration` (0-based) for `schema`.
    static func statements(_ migration: Int, schema: String) -> [String] {
        migrations[migration].map { $0.replacingEvery("{schema}", with: schema) }
    }
}
