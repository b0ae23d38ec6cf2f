import Testing
@testable import CatalogStub

/// The body of `PUT /control/products/{id}` and the rule for a valid change, without sockets.
@Suite struct ProductChangeTests {
    static let valid = #"{"priceInCents":1299,"name":"Teal Chair"}"#

    @Test func decodesBothFieldsEitherFieldAndNulls() throws {
        #expect(try ProductChange.decode(Array(Self.valid.utf8)) == ProductChange(name: "Teal Chair", priceInCents: 1299))
        #expect(try ProductChange.decode(Array(#" {"priceInCents":0} "#.utf8)) == ProductChange(priceInCents: 0))
        #expect(try ProductChange.decode(Array(#"{"name":"Ünïcödé 🚀 \"quoted\""}"#.utf8)) == ProductChange(name: #"Ünïcödé 🚀 "quoted""#))
        #expect(try ProductChange.decode(Array(#"{"name":null,"priceInCents":5}"#.utf8)) == ProductChange(priceInCents: 5))
        let max = #"{"priceInCents":\#(ProductChange.maxPriceInCents),"name":"\#(String(repeating: "é", count: 100))"}"#
        #expect(try ProductChange.decode(Array(max.utf8)).name?.utf8.count == ProductChange.maxNameBytes)
    }

    /// Every truncation of a valid body, down to the empty one, is refused.
    @Test func everyPrefixOfAValidBodyIsRefused() {
        let bytes = Array(Self.valid.utf8)
        for length in 0..<bytes.count {
            #expect(throws: FaultControlError.self, "\(length) bytes") { try ProductChange.decode(Array(bytes[..<length])) }
        }
    }

    @Test(arguments: [
        // Not a JSON object.
        "", " ", "null", "[]", #"[{"priceInCents":1}]"#, "1299", #""Teal Chair""#, "nope", "{", "}",
        // Broken around a member.
        #"{"priceInCents":1,}"#, #"{"priceInCents":1}x"#, #"{"priceInCents" 1}"#, #"{priceInCents:1}"#,
        #"{"priceInCents":1}{"name":"A"}"#, #"{'name':'A'}"#,
        // Nothing to change.
        "{}", #"{"name":null}"#, #"{"priceInCents":null,"name":null}"#,
        // A member the route does not know, alone or beside a good one; the same member twice.
        #"{"price":1}"#, #"{"priceincents":1}"#, #"{"Name":"A"}"#, #"{"currency":"EUR"}"#, #"{"id":"p2"}"#,
        #"{"priceInCents":1,"currency":"EUR"}"#, #"{"name":"A","name":"B"}"#,
        // A price of the wrong kind or out of range.
        #"{"priceInCents":-1}"#, #"{"priceInCents":1000000001}"#, #"{"priceInCents":12.5}"#, #"{"priceInCents":1e3}"#,
        #"{"priceInCents":1299.0}"#, #"{"priceInCents":"1299"}"#, #"{"priceInCents":true}"#, #"{"priceInCents":[1]}"#,
        #"{"priceInCents":99999999999999999999}"#, #"{"priceInCents":-0.5}"#, #"{"priceInCents":01}"#,
        // A name of the wrong kind, empty, blank, too long or with control characters.
        #"{"name":1}"#, #"{"name":true}"#, #"{"name":["A"]}"#, #"{"name":{"en":"A"}}"#, #"{"name":""}"#,
        #"{"name":"   "}"#, #"{"name":"\t"}"#, #"{"name":"Teal\nChair"}"#, #"{"name":"Teal\u0000"}"#, #"{"name":"A\u007F"}"#,
        #"{"name":"\#(String(repeating: "x", count: 201))"}"#, #"{"name":"\#(String(repeating: "é", count: 101))"}"#,
        #"{"name":"A","priceInCents":-1}"#,
    ])
    func badBodiesAreRefused(body: String) {
        #expect(throws: FaultControlError.self) { try ProductChange.decode(Array(body.utf8)) }
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        let body: [UInt8] = Array(#"{"name":"A"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(throws: FaultControlError.self) { try ProductChange.decode(body) }
    }

    @Test func refusalsNameWhatIsWrong() {
        func message(_ body: String) -> String {
            do {
                _ = try ProductChange.decode(Array(body.utf8))
                return ""
            } catch {
                return error.message
            }
        }
        #expect(message(#"{"zeta":1,"alpha":2}"#).contains(#""alpha""#))
        #expect(message(#"{"priceInCents":-1}"#).hasPrefix("priceInCents must be"))
        #expect(message(#"{"name":""}"#).hasPrefix("name must be"))
        #expect(message("{}").contains("needs"))
        #expect(message("[]").contains("JSON object"))
    }

    @Test func appliedReplacesOnlyTheGivenFields() {
        let product = StubProduct(id: "p7", name: "Sleek Oak Mug", priceInCents: 1299, currency: "EUR")
        #expect(ProductChange(priceInCents: 5).applied(to: product)
            == StubProduct(id: "p7", name: "Sleek Oak Mug", priceInCents: 5, currency: "EUR"))
        #expect(ProductChange(name: "Mug").applied(to: product)
            == StubProduct(id: "p7", name: "Mug", priceInCents: 1299, currency: "EUR"))
        #expect(ProductChange(name: "Mug", priceInCents: 0).applied(to: product)
            == StubProduct(id: "p7", name: "Mug", priceInCents: 0, currency: "EUR"))
    }
}

/// The table of changes the stub answers from: a change reaches the product and every suggestion
/// list that includes it, and nothing else.
@Suite struct ProductChangesTests {
    let catalog = Catalog(size: 60, seed: 3)

    /// The product found in the most suggestion lists, and those lists' owners.
    func mostSuggested() -> (index: Int, owners: [Int]) {
        let owners = Dictionary(grouping: (1...catalog.size).flatMap { owner in
            catalog.suggestionIndices(at: owner).map { (suggested: $0, owner: owner) }
        }, by: \.suggested)
        let best = owners.max { $0.value.count < $1.value.count || ($0.value.count == $1.value.count && $0.key > $1.key) }!
        return (best.key, best.value.map(\.owner))
    }

    @Test func aChangeShowsInTheProductAndEverySuggestionListThatIncludesIt() {
        let changes = ProductChanges()
        let (s, owners) = mostSuggested()
        #expect(owners.count >= 2)
        let change = ProductChange(name: "Teal Chair", priceInCents: 1)
        #expect(changes.set(change, at: s))

        let changed = change.applied(to: catalog.product(at: s))
        #expect(changes.product(at: s, in: catalog) == changed)
        for index in 1...catalog.size {
            let indices = catalog.suggestionIndices(at: index)
            let expected = indices.map { $0 == s ? changed : catalog.product(at: $0) }
            #expect(changes.products(at: indices, in: catalog) == expected)
            #expect(indices.contains(s) == owners.contains(index))
            if index != s { #expect(changes.product(at: index, in: catalog) == catalog.product(at: index)) }
        }
    }

    @Test func aLaterChangeReplacesTheEarlierOne() {
        let changes = ProductChanges()
        #expect(changes.set(ProductChange(name: "Teal Chair", priceInCents: 1), at: 4))
        #expect(changes.set(ProductChange(priceInCents: 2), at: 4))
        #expect(changes.product(at: 4, in: catalog) == ProductChange(priceInCents: 2).applied(to: catalog.product(at: 4)))
        #expect(changes.count == 1)
    }

    @Test func removeUndoesOneAndRemoveAllUndoesEvery() {
        let changes = ProductChanges()
        let (s, owners) = mostSuggested()
        let other = s == 1 ? 2 : 1
        #expect(changes.set(ProductChange(priceInCents: 1), at: s))
        #expect(changes.set(ProductChange(priceInCents: 2), at: other))
        changes.remove(at: s)
        #expect(changes.product(at: s, in: catalog) == catalog.product(at: s))
        let list = catalog.suggestionIndices(at: owners[0])
        #expect(changes.products(at: list, in: catalog)
            == list.map { $0 == other ? ProductChange(priceInCents: 2).applied(to: catalog.product(at: $0)) : catalog.product(at: $0) })
        #expect(changes.count == 1)
        changes.removeAll()
        #expect(changes.count == 0)
        #expect(changes.product(at: other, in: catalog) == catalog.product(at: other))
        changes.remove(at: other)
        #expect(changes.count == 0)
    }

    @Test func aFullTableRefusesNewProductsButNotReplacements() {
        let changes = ProductChanges(capacity: 2)
        #expect(changes.set(ProductChange(priceInCents: 1), at: 1))
        #expect(changes.set(ProductChange(priceInCents: 2), at: 2))
        #expect(!changes.set(ProductChange(priceInCents: 3), at: 3))
        #expect(changes.product(at: 3, in: catalog) == catalog.product(at: 3))
        #expect(changes.set(ProductChange(priceInCents: 4), at: 2))
        changes.remove(at: 1)
        #expect(changes.set(ProductChange(priceInCents: 3), at: 3))
        #expect(changes.count == 2)
    }
}
