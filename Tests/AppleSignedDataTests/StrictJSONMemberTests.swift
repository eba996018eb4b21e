import Testing

@testable import AppleSignedData

/// `StrictJSON.member` (validate everything, build one member) agrees with `StrictJSON.object`
/// (build everything) on every input: same value, same refusal.
@Suite struct StrictJSONMemberTests {
    enum Failure: Error, Equatable {
        case duplicate(String)
        case notObject
    }

    static func viaObject(_ text: String) -> Result<JSONValue?, Failure> {
        Result { () throws(Failure) -> JSONValue? in
            try StrictJSON.object(Array(text.utf8), duplicate: Failure.duplicate, notObject: .notObject)["signedDate"]
        }
    }

    static func viaMember(_ text: String) -> Result<JSONValue?, Failure> {
        Result { () throws(Failure) -> JSONValue? in
            try StrictJSON.member("signedDate", of: Array(text.utf8), duplicate: Failure.duplicate, notObject: .notObject)
        }
    }

    static let inputs = [
        #"{"signedDate":1739161772561,"bundleId":"com.example","nested":{"a":[1,2,{"b":null}],"c":true}}"#,
        #"{"bundleId":"com.example"}"#,
        #"{"signedDate":"1739161772561"}"#,
        #"{"signedDate":1,"signedDate":2}"#,
        #"{"signedDate":1,"nested":{"x":1,"x":2}}"#,
        #"{"nested":[{"x":1},{"x":1,"x":2}],"signedDate":1}"#,
        #"{"name":"Zo\u00eb \"quoted\" \\ slash","signedDate":5}"#,
        "{\"name\":\"Zoë — ünïcode\",\"signedDate\":6}",
        "{\"bad\":\"\u{01}\",\"signedDate\":1}",
        #"{"signedDate":1,}"#, #"{"signedDate":1} x"#, #"["signedDate",1]"#, "", "   ", #"{"a":tru}"#,
        #"{"a":"unterminated}"#, #"{"a":01}"#, #"{"a":-}"#, #"{"a":[1,2}"#, #"{"a":"\uD800"}"#,
        "  {\"signedDate\" : 42 }  ",
    ]

    @Test(arguments: inputs)
    func memberAgreesWithObject(input: String) {
        #expect(Self.viaMember(input) == Self.viaObject(input), "\(input)")
    }

    @Test func everyTruncationAgrees() {
        let text = Array(Self.inputs[0].utf8)
        for length in 0...text.count {
            let prefix = String(decoding: text[..<length], as: UTF8.self)
            #expect(Self.viaMember(prefix) == Self.viaObject(prefix), "length \(length)")
        }
    }
}
