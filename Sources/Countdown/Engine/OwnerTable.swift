/// Each owner's ``OwnerTimers``, by uid: a dense array of entries found through a dictionary, with
/// the slot of the owner last written remembered.
///
/// A start writes its owner's entry (the id list and the live count) and, for a non-root caller,
/// first reads its live count for the quota: with a `[UInt32: OwnerTimers]` dictionary that was one
/// or two hashed probes per start (SipHash of the uid, a tenth of
/// ``TimerEngine/start(durations:name:owner:quota:action:wake:alarm:)`` in callgrind). Requests come
/// in runs from one connection, hence one uid, so a read or write of the owner last written skips
/// the hash; any other owner costs the one probe it cost before. Removing an owner moves the last
/// entry into its slot (O(1)).
struct OwnerTable: Sendable {
    /// uid → index in ``entries`` and ``owners``.
    private var slots: [UInt32: Int] = [:]
    private var entries: [OwnerTimers] = []
    /// `owners[i]` is the uid of `entries[i]`.
    private var owners: [UInt32] = []
    /// The uid whose slot is ``cachedSlot``, valid when `cachedSlot >= 0`.
    private var cachedOwner: UInt32 = 0
    private var cachedSlot = -1

    /// Creates an empty table.
    init() {}

    /// The number of owners held.
    var count: Int { entries.count }

    /// The uids held, in no particular order.
    var keys: [UInt32] { owners }

    /// The slot of `owner`, or `nil` (the remembered one without hashing).
    private func slot(of owner: UInt32) -> Int? {
        if cachedSlot >= 0, cachedOwner == owner { return cachedSlot }
        return slots[owner]
    }

    /// The entry of `owner`, or `nil` when it has none.
    ///
    /// - Complexity: O(1): no hashing for the owner last written, else one hash probe.
    subscript(owner: UInt32) -> OwnerTimers? {
        guard let slot = slot(of: owner) else { return nil }
        return entries[slot]
    }

    /// Changes the entry of `owner` in place, creating an empty one first when it has none.
    ///
    /// - Parameters:
    ///   - owner: a uid.
    ///   - body: the change.
    /// - Complexity: O(1) amortised.
    mutating func update<Result>(_ owner: UInt32, _ body: (inout OwnerTimers) -> Result) -> Result {
        let slot: Int
        if let held = self.slot(of: owner) {
            slot = held
        } else {
            slot = entries.count
            entries.append(OwnerTimers())
            owners.append(owner)
            slots[owner] = slot
        }
        cachedOwner = owner
        cachedSlot = slot
        return body(&entries[slot])
    }

    /// Changes the entry of `owner` in place if it has one; nothing otherwise.
    ///
    /// - Parameters:
    ///   - owner: a uid.
    ///   - body: the change.
    mutating func updateIfPresent(_ owner: UInt32, _ body: (inout OwnerTimers) -> Void) {
        guard let slot = self.slot(of: owner) else { return }
        cachedOwner = owner
        cachedSlot = slot
        body(&entries[slot])
    }

    /// Removes the entry of `owner`.
    ///
    /// - Returns: the entry, or `nil` when it had none.
    /// - Complexity: O(1) amortised: the last entry moves into the freed slot.
    @discardableResult
    mutating func removeValue(forKey owner: UInt32) -> OwnerTimers? {
        guard let slot = slots.removeValue(forKey: owner) else { return nil }
        cachedSlot = -1
        let removed = entries[slot]
        let last = entries.count - 1
        if slot != last {
            entries[slot] = entries[last]
            owners[slot] = owners[last]
            slots[owners[slot]] = slot
        }
        entries.removeLast()
        owners.removeLast()
        return removed
    }

    /// Sets the entry of `owner`, adding or replacing it.
    ///
    /// - Parameters:
    ///   - entry: the entry.
    ///   - owner: a uid.
    mutating func set(_ entry: OwnerTimers, for owner: UInt32) {
        update(owner) { $0 = entry }
    }

    /// Removes every owner.
    mutating func removeAll() {
        slots = [:]
        entries = []
        owners = []
        cachedSlot = -1
    }
}
