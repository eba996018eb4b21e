import Testing
@testable import AppleSignedData

@Test func targetLinks() {
    #expect("\(AppleSignedData.self)" == "AppleSignedData")
}
