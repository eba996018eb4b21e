import ArgumentParser
import Foundation
import SubRecon
import SubReconStore

/// `subrecon db migrate` and `subrecon db copy SOURCE TARGET`: the database itself, for deploys and
/// for moving between SQLite and PostgreSQL.
struct DbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Migrate the database's schema, or copy one store into another.",
        discussion: """
            Examples:
              subrecon db migrate                        # before the workers start
              subrecon db copy subrecon.sqlite postgres://subrecon@db.internal/subrecon
            """,
        subcommands: [Migrate.self, Copy.self])

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Create or migrate the schema and print its version (for deploy pipelines).",
            discussion: """
                Opens the database SUBRECON_DB / --db names, creates or migrates its schema, and does \
                nothing else. Every command migrates on first use anyway; this lets a deploy do it \
                before the workers start. On PostgreSQL the migration runs under a lock, so several \
                processes starting at once migrate it once. The last line is `schema version N`, the \
                same N on both stores. Exit 2: a configuration error (a malformed URL, a password \
                refused); 74: the database failed or could not be reached (retried for \
                SUBRECON_DB_RETRY_SECONDS, default 120).

                Examples:
                  SUBRECON_DB=/var/lib/subrecon/subrecon.sqlite subrecon db migrate
                  export SUBRECON_DB_PASSWORD_FILE=/etc/subrecon/db-password
                  SUBRECON_DB=postgres://subrecon@db.internal/subrecon subrecon db migrate
                  subrecon db migrate | tail -n 1       # schema version \(PostgresSchema.migrations.count)
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let result = try await global.context().migrate()
            Console.out("database: \(result.location)\nschema version \(result.schemaVersion)\n")
        }
    }

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy every table from one store into another, empty one (SQLite ⇄ PostgreSQL).",
            discussion: """
                SOURCE and TARGET are each a SQLite file or a postgres:// URL; SUBRECON_DB_PASSWORD_FILE \
                (--db-password-file) gives the password of whichever is PostgreSQL (prefer it to a \
                password in the URL, which shows in `ps`). Both are opened and migrated first and must \
                end at the same schema version. The target must hold no data (a target with receipts \
                is refused, exit 2, and left as it was); it is filled in one transaction, so a copy \
                that fails leaves it empty. Every table with data is copied (receipts, \
                receipt_versions, runs, run_items, subscriptions, renewals, subscription_changes, notifications), \
                from one consistent snapshot of the source, which may stay in use meanwhile; not the \
                run lock nor the workers' shared rate schedule. Prints the rows copied into each table. Afterwards every report gives the \
                same bytes on both stores. Exit 2: refused or a configuration error; 66: no SQLite \
                file at SOURCE; 74: a database failed or could not be reached.

                Examples:
                  export SUBRECON_DB_PASSWORD_FILE=/etc/subrecon/db-password
                  subrecon db copy ./subrecon.sqlite postgres://subrecon@db.internal/subrecon
                  subrecon db copy postgres://subrecon@db.internal/subrecon ./back.sqlite
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The store to copy from: a SQLite file or a postgres:// URL.")
        var source: String

        @Argument(help: "The store to copy into, holding no data: a SQLite file (created if missing) or a postgres:// URL.")
        var target: String

        func validate() throws {
            if global.databasePath != nil {
                throw ValidationError("db copy takes SOURCE and TARGET; --db does not apply to it")
            }
        }

        func run() async throws {
            let copied = try await global.context().copyStore(from: source, to: target)
            let width = copied.report.tables.map(\.table.count).max() ?? 0
            for count in copied.report.tables {
                Console.out(count.table.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.rows)\n")
            }
            Console.out(
                "copied \(copied.report.totalRows) rows from \(copied.source) to \(copied.target) (schema version \(copied.report.schemaVersion))\n")
        }
    }
}
