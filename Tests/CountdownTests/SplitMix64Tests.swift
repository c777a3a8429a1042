import TestSupport
import Testing

/// The shared generator must produce the sequences that the per-target copies it replaced did, or
/// every seed named in a test would now mean a different case.
@Suite("TestSupport's SplitMix64")
struct SplitMix64Tests {
    @Test("seed 0 gives the reference implementation's first outputs")
    func referenceOutputs() {
        // Expected: the first three outputs of Vigna's splitmix64.c (prng.di.unimi.it) seeded with 0.
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }
}
