import ProductDetails

extension SharedClaim {
    /// What the lease key holds while this claim has it: `<generation> <token>`, so a lease of
    /// an older generation reads as no lease at all.
    var leaseValue: String {
        generation.token + " " + token
    }
}
