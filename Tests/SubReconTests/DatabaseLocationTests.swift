import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// `DatabaseLocation.resolve`: SQLite paths, PostgreSQL URLs, the password file, masking.
@Suite("DatabaseLocation")
struct DatabaseLocationTests {
    /// Two halves no message, path or URL of these tests contains by chance: when a malformed URL
    /// splits a password, neither half may show.
    static let head = "Zq9s"
    static let tail = "Xw7t"
    static let password = head + tail
    static let osUser = "os-user-for-tests"

    private func resolve(_ text: String, passwordFile: String? = nil, user: String? = DatabaseLocationTests.osUser)
        throws(ConfigurationError) -> (location: DatabaseLocation, warnings: [String])
    {
        var warnings: [String] = []
        let location = try DatabaseLocation.resolve(text, passwordFile: passwordFile, defaultUser: { user }, warnings: &warnings)
        return (location, warnings)
    }

    private func postgres(_ text: String, passwordFile: String? = nil) throws -> (location: PostgresLocation, warnings: [String]) {
        let (location, warnings) = try resolve(text, passwordFile: passwordFile)
        guard case .postgres(let postgres) = location else {
            Issue.record("\(text) gave \(location), not PostgreSQL")
            throw ConfigurationError.other("not PostgreSQL")
        }
        return (postgres, warnings)
    }

    /// The error `text` gives, or nil (recorded as an issue) when it gives none.
    private func error(_ text: String, passwordFile: String? = nil, user: String? = DatabaseLocationTests.osUser)
        -> ConfigurationError?
    {
        do {
            let location = try resolve(text, passwordFile: passwordFile, user: user).location
            Issue.record("\(text) was accepted as \(location)")
            return nil
        } catch {
            return error
        }
    }

    /// Every way of turning a value into text, for the no-leak checks.
    private func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    private func expectNoPassword(
        _ texts: [String], _ secrets: [String] = [DatabaseLocationTests.head, DatabaseLocationTests.tail],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in texts {
            for secret in secrets {
                #expect(!text.contains(secret), "\"\(text)\" shows \(secret)", sourceLocation: sourceLocation)
            }
        }
    }

    private func temporaryFile(_ contents: String, mode: Int = 0o600) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-dburl-\(UUID().uuidString)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
        return path
    }

    private func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    // MARK: SQLite, as before

    @Test("anything that is not SCHEME://... is a SQLite path, exactly as given", arguments: [
        "./subrecon.sqlite", "/var/lib/subrecon/db.sqlite", "db.sqlite", " name with blanks.sqlite ", "postgres",
        "postgres:/not-a-url", "postgres:db.sqlite", "./postgres://x", "data/postgres://u:pw@h/db", "1pg://x", "",
    ])
    func sqlitePath(text: String) throws {
        #expect(try resolve(text).location == .sqlite(path: text))
    }

    @Test func aPasswordFileIsIgnoredForSQLite() throws {
        // Given a password file that does not exist, and one others can read
        let readable = try temporaryFile(Self.password + "\n", mode: 0o644)
        defer { remove(readable) }
        for file in ["/nonexistent/subrecon-db-password", readable] {
            // When the location is a SQLite path
            let (location, warnings) = try resolve("./subrecon.sqlite", passwordFile: file)
            // Then the file is neither read nor checked nor warned about
            #expect(location == .sqlite(path: "./subrecon.sqlite"))
            #expect(warnings.isEmpty)
        }
    }

    // MARK: PostgreSQL URLs

    struct Valid: Sendable, CustomTestStringConvertible {
        var url: String
        var expected: PostgresLocation
        var masked: String
        var testDescription: String { url }
    }

    static let valid: [Valid] = [
        Valid(
            url: "postgres://alice:\(password)@db.example.com:6432/subrecon",
            expected: PostgresLocation(
                host: "db.example.com", port: 6432, user: "alice", password: password, database: "subrecon", tls: .require),
            masked: "postgres://alice:***@db.example.com:6432/subrecon"),
        Valid(
            url: "postgresql://alice@db.example.com/subrecon",
            expected: PostgresLocation(host: "db.example.com", port: 5432, user: "alice", database: "subrecon", tls: .require),
            masked: "postgresql://alice@db.example.com/subrecon"),
        Valid(
            url: "POSTGRES://alice@LocalHost/subrecon",
            expected: PostgresLocation(host: "LocalHost", user: "alice", database: "subrecon", tls: .disable),
            masked: "POSTGRES://alice@LocalHost/subrecon"),
        Valid(
            url: "postgres://u:\(password)@[::1]:5433/db",
            expected: PostgresLocation(host: "::1", port: 5433, user: "u", password: password, database: "db", tls: .disable),
            masked: "postgres://u:***@[::1]:5433/db"),
        Valid(
            url: "postgres://u@[2001:db8::7]/db",
            expected: PostgresLocation(host: "2001:db8::7", user: "u", database: "db", tls: .require),
            masked: "postgres://u@[2001:db8::7]/db"),
        Valid(
            url: "postgres://u@127.0.0.1/db",
            expected: PostgresLocation(host: "127.0.0.1", user: "u", database: "db", tls: .disable),
            masked: "postgres://u@127.0.0.1/db"),
        Valid(
            url: "postgres://u@127.31.2.9:5434/db",
            expected: PostgresLocation(host: "127.31.2.9", port: 5434, user: "u", database: "db", tls: .disable),
            masked: "postgres://u@127.31.2.9:5434/db"),
        Valid(
            url: "postgres://u@10.0.0.5/db",
            expected: PostgresLocation(host: "10.0.0.5", user: "u", database: "db", tls: .require),
            masked: "postgres://u@10.0.0.5/db"),
        Valid(
            url: "postgres://u@localhost/db?sslmode=require",
            expected: PostgresLocation(host: "localhost", user: "u", database: "db", tls: .require),
            masked: "postgres://u@localhost/db?sslmode=require"),
        Valid(
            url: "postgres://u@db.example.com/db?sslmode=disable",
            expected: PostgresLocation(host: "db.example.com", user: "u", database: "db", tls: .disable),
            masked: "postgres://u@db.example.com/db?sslmode=disable"),
        Valid(
            url: "postgres://u:\(password)@db.example.com/db?sslmode=verify-full&",
            expected: PostgresLocation(
                host: "db.example.com", user: "u", password: password, database: "db", tls: .verifyFull(rootCertificatePath: nil)),
            masked: "postgres://u:***@db.example.com/db?sslmode=verify-full&"),
        // Percent-decoded user and database; an empty password is none; blanks around the URL ignored
        Valid(
            url: " postgres://app%40corp:@db-1.example.com/my%20db?\n",
            expected: PostgresLocation(host: "db-1.example.com", user: "app@corp", database: "my db", tls: .require),
            masked: "postgres://app%40corp:@db-1.example.com/my%20db?"),
        // No user: the operating-system user, as libpq
        Valid(
            url: "postgres://db.example.com/db",
            expected: PostgresLocation(host: "db.example.com", user: osUser, database: "db", tls: .require),
            masked: "postgres://db.example.com/db"),
        Valid(
            url: "postgres://:\(password)@localhost/db",
            expected: PostgresLocation(host: "localhost", user: osUser, password: password, database: "db", tls: .disable),
            masked: "postgres://:***@localhost/db"),
    ]

    @Test("a postgres:// URL is PostgreSQL, with its defaults", arguments: valid)
    func validURL(_ example: Valid) throws {
        // When the URL is resolved
        let (location, warnings) = try postgres(example.url)
        // Then every part is as expected, and the masked form is the URL as given without the password
        #expect(location == example.expected)
        #expect(location.host == example.expected.host)
        #expect(location.port == example.expected.port)
        #expect(location.user == example.expected.user)
        #expect(location.password == example.expected.password)
        #expect(location.database == example.expected.database)
        #expect(location.tls == example.expected.tls)
        #expect(location.masked == example.masked)
        #expect(warnings.isEmpty)
        // And no rendering of it shows the password
        expectNoPassword(renderings(location) + renderings(DatabaseLocation.postgres(location)))
    }

    @Test("a percent-encoded password is decoded as libpq does, and never shown", arguments: [
        ("p%40ss", "p@ss"), ("p%3Ass", "p:ss"), ("p:ss", "p:ss"), ("a%2Fb", "a/b"), ("100%25", "100%"),
        ("%40%3A%2F%25%3F%23%26%3D", "@:/%?#&="), ("sp%20ace", "sp ace"), ("plus+sign", "plus+sign"),
        ("%C3%A9t%C3%A9", "été"), ("%7e%7E", "~~"),
    ])
    func percentEncodedPassword(encoded: String, decoded: String) throws {
        // Given a password with characters a URL must encode, between two distinctive halves
        let url = "postgres://alice:\(Self.head)\(encoded)\(Self.tail)@db.example.com/app"
        // When resolved
        let (location, _) = try postgres(url)
        // Then the password is decoded
        #expect(location.password == Self.head + decoded + Self.tail)
        #expect(location.user == "alice")
        #expect(location.host == "db.example.com")
        // And the masked URL replaces it whole, and nothing shows it, encoded or not
        #expect(location.masked == "postgres://alice:***@db.example.com/app")
        expectNoPassword(renderings(location) + renderings(DatabaseLocation.postgres(location)))
    }

    // MARK: malformed URLs

    struct Malformed: Sendable, CustomTestStringConvertible {
        var url: String
        var problem: String
        var masked: String
        var testDescription: String { url }
    }

    static let host = "db.example.com"
    static let withPassword = "postgres://alice:\(password)@\(host)"
    static let shown = "postgres://alice:***@\(host)"

    static let malformed: [Malformed] = [
        Malformed(url: "postgres://alice:\(password)@/app", problem: "has no host", masked: "postgres://alice:***@/app"),
        Malformed(url: "postgres://alice:\(password)@:5432/app", problem: "has no host", masked: "postgres://alice:***@:5432/app"),
        Malformed(url: withPassword + ":54x2/app", problem: #"has a bad port "54x2""#, masked: shown + ":54x2/app"),
        Malformed(url: withPassword + ":0/app", problem: #"has a bad port "0""#, masked: shown + ":0/app"),
        Malformed(url: withPassword + ":65536/app", problem: #"has a bad port "65536""#, masked: shown + ":65536/app"),
        Malformed(url: withPassword + ":-1/app", problem: #"has a bad port "-1""#, masked: shown + ":-1/app"),
        Malformed(url: withPassword + ":/app", problem: #"has a bad port """#, masked: shown + ":/app"),
        Malformed(url: withPassword, problem: "has no database name", masked: shown),
        Malformed(url: withPassword + "/", problem: "has no database name", masked: shown + "/"),
        Malformed(url: withPassword + "?sslmode=require", problem: "has no database name", masked: shown + "?sslmode=require"),
        Malformed(url: withPassword + "/?sslmode=require", problem: "has no database name", masked: shown + "/?sslmode=require"),
        Malformed(url: withPassword + "/app?sslmode=prefer", problem: #"unknown sslmode "prefer""#, masked: shown + "/app?sslmode=prefer"),
        Malformed(url: withPassword + "/app?sslmode=verify-ca", problem: #"unknown sslmode "verify-ca""#, masked: shown + "/app?sslmode=verify-ca"),
        Malformed(url: withPassword + "/app?sslmode=", problem: #"unknown sslmode """#, masked: shown + "/app?sslmode="),
        Malformed(url: withPassword + "/app?sslmode=REQUIRE", problem: #"unknown sslmode "REQUIRE""#, masked: shown + "/app?sslmode=REQUIRE"),
        Malformed(
            url: withPassword + "/app?connect_timeout=10", problem: #"unknown parameter "connect_timeout""#,
            masked: shown + "/app?connect_timeout=***"),
        Malformed(
            url: withPassword + "/app?sslmode=require&sslmode=disable", problem: "gives sslmode twice",
            masked: shown + "/app?sslmode=require&sslmode=disable"),
        Malformed(url: withPassword + "/app?sslmode", problem: "without =VALUE", masked: shown + "/app?***"),
        Malformed(
            url: withPassword + "/app?sslmode=verify-full&sslrootcert=", problem: "has an empty sslrootcert",
            masked: shown + "/app?sslmode=verify-full&sslrootcert="),
        Malformed(
            url: withPassword + "/app?sslrootcert=/etc/ca.pem", problem: "sslrootcert without sslmode=verify-full",
            masked: shown + "/app?sslrootcert=/etc/ca.pem"),
        Malformed(
            url: withPassword + "/app?sslmode=disable&sslrootcert=/etc/ca.pem", problem: "sslrootcert without sslmode=verify-full",
            masked: shown + "/app?sslmode=disable&sslrootcert=/etc/ca.pem"),
        // A password in the query, its value masked, its text never shown
        Malformed(
            url: "postgres://alice@\(host)/app?password=\(password)", problem: "has a password parameter",
            masked: "postgres://alice@\(host)/app?password=***"),
        Malformed(
            url: "postgres://alice@\(host)/app?app%3Dname=\(tail)", problem: "has an unknown parameter (only",
            masked: "postgres://alice@\(host)/app?app%3Dname=***"),
        // Bad percent-encoding, wherever it is
        Malformed(url: "postgres://alice:\(head)%zz\(tail)@\(host)/app", problem: "bad percent-encoding in the password", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)\(tail)%@\(host)/app", problem: "bad percent-encoding in the password", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)%2\(tail)@\(host)/app", problem: "bad percent-encoding in the password", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)%00\(tail)@\(host)/app", problem: "bad percent-encoding in the password", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)%FF\(tail)@\(host)/app", problem: "bad percent-encoding in the password", masked: shown + "/app"),
        Malformed(
            url: "postgres://al%g1ice:\(password)@\(host)/app", problem: "bad percent-encoding in the user name",
            masked: "postgres://al%g1ice:***@\(host)/app"),
        Malformed(url: withPassword + "/a%2", problem: "bad percent-encoding in the database name", masked: shown + "/a%2"),
        Malformed(url: withPassword + "/app?sslmode=dis%5gable", problem: "bad percent-encoding in the query", masked: shown + "/app?sslmode=dis%5gable"),
        // Unencoded delimiters inside a password: refused, and the whole password masked
        Malformed(url: "postgres://alice:\(head)@\(tail)@\(host)/app", problem: "has more than one @", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)/\(tail)@\(host)/app", problem: "has an @ after the host", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)?\(tail)@\(host)/app", problem: "has an @ after the host", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head)#\(tail)@\(host)/app", problem: "has a #", masked: shown + "/app"),
        Malformed(url: "postgres://alice:\(head):/\(tail)@\(host)/app?x", problem: "has an @ after the host", masked: shown + "/app?***"),
        // Hosts
        Malformed(url: "postgres://alice:\(password)@::1/app", problem: "write an IPv6 address in brackets", masked: "postgres://alice:***@::1/app"),
        Malformed(url: "postgres://alice:\(password)@[::1/app", problem: "without its closing ]", masked: "postgres://alice:***@[::1/app"),
        Malformed(url: "postgres://alice:\(password)@[db.example]/app", problem: "bad IPv6 address", masked: "postgres://alice:***@[db.example]/app"),
        Malformed(url: "postgres://alice:\(password)@[::1]x/app", problem: "other than :PORT", masked: "postgres://alice:***@[::1]x/app"),
        Malformed(url: "postgres://alice:\(password)@[::1]:/app", problem: #"bad port """#, masked: "postgres://alice:***@[::1]:/app"),
        Malformed(url: "postgres://alice:\(password)@h1,h2/app", problem: "names several hosts", masked: "postgres://alice:***@h1,h2/app"),
        Malformed(url: "postgres://alice:\(password)@db example/app", problem: "host name with characters", masked: "postgres://alice:***@db example/app"),
        // Another scheme: not taken for a file path
        Malformed(url: "mysql://alice:\(password)@\(host)/app", problem: "is not a PostgreSQL URL", masked: "mysql://alice:***@\(host)/app"),
        Malformed(url: "postgress://alice:\(password)@\(host)/app", problem: "is not a PostgreSQL URL", masked: "postgress://alice:***@\(host)/app"),
        Malformed(url: "file:///var/lib/subrecon.sqlite", problem: "is not a PostgreSQL URL", masked: "file:///var/lib/subrecon.sqlite"),
    ]

    @Test("a malformed URL is a configuration error that shows the URL masked", arguments: malformed)
    func malformedURL(_ example: Malformed) throws {
        // When the URL is resolved
        let caught = try #require(error(example.url))
        // Then it is an invalid database URL naming the problem, with the URL masked
        guard case .invalidDatabaseURL(let masked, let problem) = caught else {
            Issue.record("\(caught) is not an invalid database URL")
            return
        }
        #expect(masked == example.masked)
        #expect(problem.contains(example.problem), "\(problem)")
        #expect(caught.description.contains(example.masked))
        #expect(caught.description.contains("postgres://USER[:PASSWORD]@HOST"))
        // And no part of the password shows anywhere in the error
        expectNoPassword(renderings(caught) + [caught.localizedDescription])
    }

    // MARK: masking

    @Test("masking covers a password however malformed the text around it", arguments: [
        ("postgres://a:b@h/d", "postgres://a:***@h/d"),
        ("postgres://a@h/d", "postgres://a@h/d"),
        ("postgres://a:@h/d", "postgres://a:@h/d"),
        ("postgres://h:5432/d", "postgres://h:5432/d"),
        ("postgres://a:b:c@h/d", "postgres://a:***@h/d"),
        ("postgres://a:b@c@h/d", "postgres://a:***@h/d"),
        ("postgres://a:b/c?d#e@h/d?sslmode=require", "postgres://a:***@h/d?sslmode=require"),
        ("postgres://a@h/d?password=x&sslmode=require&junk&", "postgres://a@h/d?password=***&sslmode=require&***&"),
        ("not a url", "not a url"),
        ("", ""),
    ])
    func mask(text: String, masked: String) {
        #expect(PostgresURL.mask(text) == masked)
    }

    @Test func aLocationMadeFromItsPartsShowsAURLMadeFromThem() {
        // Given locations made in code, one with a password and characters a URL must encode
        let made = PostgresLocation(
            host: "::1", port: 5433, user: "app@corp", password: Self.password, database: "my db",
            tls: .verifyFull(rootCertificatePath: "/etc/ssl/root ca.pem"))
        let plain = PostgresLocation(host: "db.example.com", user: "u", database: "d")
        // Then their masked URLs are made from the parts, without the password
        #expect(made.masked == "postgres://app%40corp:***@[::1]:5433/my%20db?sslmode=verify-full&sslrootcert=/etc/ssl/root%20ca.pem")
        #expect(plain.masked == "postgres://u@db.example.com:5432/d?sslmode=require")
        expectNoPassword(renderings(made))
        // And without a TLS mode the host's default applies
        #expect(plain.tls == .require)
        #expect(PostgresLocation(host: "127.0.0.1", user: "u", database: "d").tls == .disable)
    }

    @Test func locationsAreEqualWhenTheyConnectAlike() throws {
        // Given the same database spelled two ways
        let long = try postgres("postgresql://u:\(Self.password)@db.example.com:5432/d?sslmode=require").location
        let short = try postgres("postgres://u:\(Self.password)@db.example.com/d").location
        // Then they are equal, though shown as given
        #expect(long == short)
        #expect(long.masked != short.masked)
        // And another password, port or TLS mode makes them differ
        #expect(try postgres("postgres://u:other@db.example.com/d").location != short)
        #expect(try postgres("postgres://u:\(Self.password)@db.example.com:5433/d").location != short)
        #expect(try postgres("postgres://u:\(Self.password)@db.example.com/d?sslmode=verify-full").location != short)
    }

    // MARK: TLS

    @Test("a loopback host is reached without TLS by default, any other host with TLS required", arguments: [
        ("localhost", true), ("LOCALHOST", true), ("127.0.0.1", true), ("127.10.20.30", true), ("127.255.255.255", true),
        ("::1", true), ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true),
        ("126.255.255.255", false), ("128.0.0.1", false), ("10.0.0.1", false), ("::2", false), ("::", false),
        ("::ffff:10.0.0.1", false), ("db.example.com", false), ("localhost.example.com", false), ("127.0.0.1.example.com", false),
    ])
    func loopback(host: String, isLoopback: Bool) throws {
        #expect(PostgresLocation.isLoopback(host) == isLoopback)
        let url = host.contains(":") ? "postgres://u@[\(host)]/d" : "postgres://u@\(host)/d"
        #expect(try postgres(url).location.tls == (isLoopback ? .disable : .require))
    }

    @Test func verifyFullTakesARootCertificateFile() throws {
        // Given a readable root certificate file
        let root = try temporaryFile("-----BEGIN CERTIFICATE-----\n")
        defer { remove(root) }
        // When verify-full names it
        let (location, warnings) = try postgres("postgres://u@db.example.com/d?sslmode=verify-full&sslrootcert=\(root)")
        // Then the server's certificate is to be checked against it
        #expect(location.tls == .verifyFull(rootCertificatePath: root))
        #expect(warnings.isEmpty)
        // And a missing file is a configuration error naming it, before any connection
        let missing = try #require(error("postgres://u:\(Self.password)@db.example.com/d?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))
        #expect(missing.description.contains("cannot read the root certificate file /nonexistent/ca.pem"))
        expectNoPassword(renderings(missing))
    }

    @Test func requireToleratesARootCertificateButSaysItIsNotUsed() throws {
        // Given sslmode=require with sslrootcert, as a URL copied from a libpq setup may have
        let (location, warnings) = try postgres(
            "postgres://u:\(Self.password)@db.example.com/d?sslrootcert=/etc/ssl/ca.pem&sslmode=require")
        // Then TLS is required, the certificate is not used, and a warning says so
        #expect(location.tls == .require)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("not checked against /etc/ssl/ca.pem") == true)
        #expect(warnings.first?.contains("sslmode=verify-full") == true)
        expectNoPassword(warnings)
    }

    // MARK: the user

    @Test func withoutAUserTheOperatingSystemUserIsUsed() throws {
        // Given a URL with no user, resolved as the command does
        var warnings: [String] = []
        let location = try DatabaseLocation.resolve("postgres://db.example.com/d", passwordFile: nil, warnings: &warnings)
        // Then the user is the name of the user this process runs as, as for libpq
        let name = try #require(PostgresLocation.operatingSystemUserName())
        #expect(!name.isEmpty)
        #expect(name == ProcessInfo.processInfo.userName)
        #expect(location == .postgres(PostgresLocation(host: "db.example.com", user: name, database: "d")))
        // And when that name cannot be found, the error asks for USER@
        let unknown = try #require(error("postgres://:\(Self.password)@db.example.com/d", user: nil))
        #expect(unknown.description.contains("names no user"))
        #expect(unknown.description.contains("USER@"))
        expectNoPassword(renderings(unknown))
    }

    // MARK: the password file

    @Test("the password file's first line is the password", arguments: [
        "Zq9sXw7t", "Zq9sXw7t\n", "Zq9sXw7t\r\n", "  Zq9sXw7t\t\nsecond line\n", "Zq9sXw7t\r\nold password\r\n", "Zq9sXw7t\rold\r",
    ])
    func passwordFile(contents: String) throws {
        // Given a password file (mode 600) and a URL without a password
        let path = try temporaryFile(contents)
        defer { remove(path) }
        // When resolved
        let (location, warnings) = try postgres("postgres://alice@db.example.com/app", passwordFile: path)
        // Then the password is the file's first line, without its line end or blanks
        #expect(location.password == Self.password)
        #expect(location.user == "alice")
        #expect(warnings.isEmpty)
        // And the URL shown is the one given, which holds no password
        #expect(location.masked == "postgres://alice@db.example.com/app")
        expectNoPassword(renderings(location))
    }

    @Test func thePasswordFileIsTakenAsItIsNotPercentDecoded() throws {
        let path = try temporaryFile("p%40ss:w/rd\n")
        defer { remove(path) }
        #expect(try postgres("postgres://alice@db.example.com/app", passwordFile: path).location.password == "p%40ss:w/rd")
    }

    @Test func aPasswordFileOthersCanReadGivesAWarning() throws {
        // Given a password file group and others can read
        let path = try temporaryFile(Self.password + "\n", mode: 0o644)
        defer { remove(path) }
        // When resolved
        let (location, warnings) = try postgres("postgres://alice@db.example.com/app", passwordFile: path)
        // Then it is used, with the same warning as the shared secret file's
        #expect(location.password == Self.password)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("the database password file \(path)") == true)
        #expect(warnings.first?.contains("chmod 600") == true)
        expectNoPassword(warnings)
    }

    @Test func aPasswordInTheURLAndAFileIsAConfigurationError() throws {
        // Given a password file and a URL with a password too
        let path = try temporaryFile("other-password\n")
        defer { remove(path) }
        // Then it is refused, so nobody wonders which one is used
        let caught = try #require(error("postgres://alice:\(Self.password)@db.example.com/app", passwordFile: path))
        #expect(caught == .bothDatabasePasswordSourcesSet(maskedURL: "postgres://alice:***@db.example.com/app"))
        #expect(caught.description.contains("SUBRECON_DB_PASSWORD_FILE"))
        expectNoPassword(renderings(caught))
        // But an empty password in the URL is none, and the file's is used
        #expect(try postgres("postgres://alice:@db.example.com/app", passwordFile: path).location.password == "other-password")
    }

    @Test func anUnreadableOrEmptyPasswordFileIsAConfigurationError() throws {
        let url = "postgres://alice@db.example.com/app"
        #expect(
            error(url, passwordFile: "/nonexistent/subrecon-db-password")
                == .databasePasswordFileUnreadable(path: "/nonexistent/subrecon-db-password", reason: "no such file"))
        for contents in ["", "\n", "  \r\nZq9sXw7t\n"] {
            let path = try temporaryFile(contents)
            defer { remove(path) }
            let caught = error(url, passwordFile: path)
            #expect(caught == .databasePasswordFileEmpty(path: path))
            #expect(caught?.description.contains("SUBRECON_DB_PASSWORD_FILE") == true)
            expectNoPassword(caught.map { renderings($0) } ?? [])
        }
    }

    @Test func aMalformedURLIsReportedBeforeThePasswordFileIsRead() throws {
        // Given a malformed URL and a password file that cannot be read
        let caught = try #require(error("postgres://alice@/app", passwordFile: "/nonexistent/subrecon-db-password"))
        // Then the URL's problem is what is reported
        #expect(caught == .invalidDatabaseURL(maskedURL: "postgres://alice@/app", problem: "has no host"))
    }
}
