import Foundation

/// A new event's ID: a random lower-case canonical UUID (the `webhook-id`).
package enum EventID {
    package static func make() -> String { UUID().uuidString.lowercased() }
}
