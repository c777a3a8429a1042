import Testing

extension Tag {
    /// Suites that run the real `timerd` and `timerctl` binaries and sleep: the slow part of
    /// `swift test`. `swift test --skip EndToEndTests` leaves them out (README, Testing); toolchains
    /// whose `swift test` reads tag filters (swift-evolution ST-0025, newer than 6.3.1) can also
    /// say `--skip tag:endToEnd`.
    @Tag static var endToEnd: Self
}
