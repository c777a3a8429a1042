/// A rational number of units, exact while it fits in `Int64`, approximate after that.
///
/// `ProgressTree` uses it for the overall fraction of a node (own completed units plus the
/// weighted fractions of its children, divided by its total). swift-corelibs-foundation keeps the
/// same quantity as a `_ProgressFraction` (`Sources/Foundation/ProgressFraction.swift`) and decides
/// "finished" by comparing numerator and denominator exactly; an exact rational lets this type
/// take the same decision at exactly 1 (for example 1/3 + 2/3), where `Double` sums may land on
/// 0.999…. When an intermediate product or sum overflows `Int64`, the value continues as a
/// `Double` instead of trapping; such a `Double` is always finite, never NaN.
struct UnitFraction: Sendable, Hashable {
    private enum Storage: Sendable, Hashable {
        /// `numerator / denominator`, reduced, `denominator > 0`.
        case exact(numerator: Int64, denominator: Int64)
        /// A finite approximation used after an overflow.
        case approximate(Double)
    }

    private var storage: Storage

    /// The whole number `integer`.
    init(_ integer: Int64) {
        storage = .exact(numerator: integer, denominator: 1)
    }

    private init(numerator: Int64, denominator: Int64) {
        precondition(denominator > 0, "UnitFraction denominator must be positive")
        let divisor = Int64(bitPattern: Self.greatestCommonDivisor(numerator.magnitude, denominator.magnitude))
        // `divisor` divides `denominator`, so it is at least 1 and fits in Int64.
        if divisor > 1 {
            storage = .exact(numerator: numerator / divisor, denominator: denominator / divisor)
        } else {
            storage = .exact(numerator: numerator, denominator: denominator)
        }
    }

    private init(approximately value: Double) {
        if value.isNaN {
            storage = .approximate(0)
        } else {
            storage = .approximate(
                Swift.min(Swift.max(value, -Double.greatestFiniteMagnitude), Double.greatestFiniteMagnitude))
        }
    }

    /// The value as a `Double`: `Double(numerator) / Double(denominator)`, like Foundation's
    /// `_ProgressFraction.fractionCompleted`. Always finite.
    var doubleValue: Double {
        switch storage {
        case .exact(let numerator, let denominator):
            return Double(numerator) / Double(denominator)
        case .approximate(let value):
            return value
        }
    }

    /// Whether the value is below zero.
    var isNegative: Bool {
        switch storage {
        case .exact(let numerator, _):
            return numerator < 0
        case .approximate(let value):
            return value < 0
        }
    }

    /// Whether the value is 1 or more (Foundation's `completed >= total && completed > 0`).
    var isAtLeastOne: Bool {
        switch storage {
        case .exact(let numerator, let denominator):
            return numerator >= denominator
        case .approximate(let value):
            return value >= 1
        }
    }

    /// The sum of two fractions; approximate if the exact sum does not fit in `Int64`.
    static func + (lhs: UnitFraction, rhs: UnitFraction) -> UnitFraction {
        guard case .exact(let a, let b) = lhs.storage, case .exact(let c, let d) = rhs.storage else {
            return UnitFraction(approximately: lhs.doubleValue + rhs.doubleValue)
        }
        let divisor = Int64(bitPattern: greatestCommonDivisor(b.magnitude, d.magnitude))
        let (common, commonOverflow) = (b / divisor).multipliedReportingOverflow(by: d)
        let (left, leftOverflow) = a.multipliedReportingOverflow(by: d / divisor)
        let (right, rightOverflow) = c.multipliedReportingOverflow(by: b / divisor)
        guard !commonOverflow, !leftOverflow, !rightOverflow else {
            return UnitFraction(approximately: lhs.doubleValue + rhs.doubleValue)
        }
        let (sum, sumOverflow) = left.addingReportingOverflow(right)
        guard !sumOverflow else {
            return UnitFraction(approximately: lhs.doubleValue + rhs.doubleValue)
        }
        return UnitFraction(numerator: sum, denominator: common)
    }

    /// This fraction times a whole number of units (a child's `pendingUnitCount`).
    func multiplied(by factor: Int64) -> UnitFraction {
        guard case .exact(let numerator, let denominator) = storage else {
            return UnitFraction(approximately: doubleValue * Double(factor))
        }
        let divisor = Int64(bitPattern: Self.greatestCommonDivisor(factor.magnitude, denominator.magnitude))
        let (product, overflow) = numerator.multipliedReportingOverflow(by: factor / divisor)
        guard !overflow else {
            return UnitFraction(approximately: doubleValue * Double(factor))
        }
        return UnitFraction(numerator: product, denominator: denominator / divisor)
    }

    /// This fraction divided by a positive whole number of units (a node's `totalUnitCount`).
    func divided(by divisor: Int64) -> UnitFraction {
        precondition(divisor > 0, "UnitFraction divisor must be positive")
        guard case .exact(let numerator, let denominator) = storage else {
            return UnitFraction(approximately: doubleValue / Double(divisor))
        }
        let common = Int64(bitPattern: Self.greatestCommonDivisor(numerator.magnitude, divisor.magnitude))
        let (product, overflow) = denominator.multipliedReportingOverflow(by: divisor / common)
        guard !overflow else {
            return UnitFraction(approximately: doubleValue / Double(divisor))
        }
        return UnitFraction(numerator: numerator / common, denominator: product)
    }

    /// Euclid's algorithm on magnitudes; `gcd(0, n) == n`, `gcd(0, 0) == 0`.
    private static func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 {
            (x, y) = (y, x % y)
        }
        return x
    }
}
