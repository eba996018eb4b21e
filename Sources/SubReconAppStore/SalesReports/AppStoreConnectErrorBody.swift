import Foundation
import SubReconModel

/// App Store Connect's JSON error document (`{"errors":[{"status","code","title","detail","source"}]}`),
/// read leniently: a body that is not one (an HTML page from a proxy) gives no errors.
package struct AppStoreConnectErrorBody: Decodable, Sendable {
    package struct Entry: Decodable, Sendable {
        package struct Source: Decodable, Sendable {
            package var parameter: String?
        }
        package var status: String?
        package var code: String?
        package var title: String?
        package var detail: String?
        package var source: Source?
    }

    package var errors: [Entry]

    package static func parse(_ body: [UInt8]) -> [Entry] {
        (try? JSONDecoder().decode(AppStoreConnectErrorBody.self, from: Data(body)))?.errors ?? []
    }

    /// The version Apple names in "… The latest version for this report is 1_1." (a 400 about
    /// `filter[version]`), nil when the answer is about something else.
    package static func latestVersion(in entries: [Entry]) -> String? {
        for entry in entries where entry.source?.parameter == "filter[version]" {
            guard let detail = entry.detail, let range = detail.range(of: "latest version for this report is ") else { continue }
            let version = detail[range.upperBound...].prefix { $0.isNumber || $0 == "_" }
            if !version.isEmpty { return String(version) }
        }
        return nil
    }

    /// Apple's own words for an operator (title and detail of the first error), cut short and
    /// stripped of control characters: it is text from the network.
    package static func summary(of entries: [Entry]) -> String {
        guard let first = entries.first else { return "no error details" }
        let text = [first.code, first.title, first.detail].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        let clean = String(text.unicodeScalars.filter { !$0.properties.generalCategory.isControl }.prefix(300).map(Character.init))
        return clean.isEmpty ? "no error details" : clean
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool { self == .control || self == .format }
}
