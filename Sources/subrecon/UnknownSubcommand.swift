import ArgumentParser

/// A mistyped subcommand (`subrecon reprot`, `subrecon db migrat`): ArgumentParser says only
/// "Unexpected argument"; options get a did-you-mean from it, so subcommands get one here.
enum UnknownSubcommand {
    /// The usage error for the first unknown subcommand of `arguments` (the process's, without the
    /// program's name) under `root`, or nil when there is none (the parser then handles them).
    static func message(_ arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            // Options, and anything after a command that takes no subcommand, are the parser's.
            guard !argument.hasPrefix("-"), !subcommands.isEmpty else { return nil }
            // `subrecon help COMMAND…` names commands too (ArgumentParser shows the top help for
            // an unknown one, silently).
            if argument == "help" { continue }
            guard let next = subcommands.first(where: { $0._commandName == argument }) else {
                let names = subcommands.map { $0._commandName }
                let hint = closest(to: argument, among: names).map { " Did you mean '\($0)'?" } ?? ""
                let usage = path.joined(separator: " ")
                return """
                    Error: Unknown subcommand '\(argument)'.\(hint)
                    Usage: \(usage) <subcommand>, one of: \(names.joined(separator: ", "))
                      See '\(usage) --help' for more information.
                    """
            }
            command = next
            path.append(argument)
        }
        return nil
    }

    /// The name `text` is likely a typo of: the nearest by edit distance, if near enough (a
    /// third of the name), or the one `text` begins.
    static func closest(to text: String, among names: [String]) -> String? {
        let scored = names.map { (name: $0, distance: distance(Array(text), Array($0))) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= max(2, best.name.count / 3) {
            return best.name
        }
        return names.first { $0.hasPrefix(text) || text.hasPrefix($0) }
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
