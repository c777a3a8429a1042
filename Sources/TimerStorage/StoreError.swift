/// Why a ``TimerStore`` refused a call.
///
/// The first three cases are the ones a store of one host throws; the last two are the refusals of
/// a store that checks what it is given, as a shared store must (``MemoryStore`` checks them today;
/// ``TimerStore`` says how a shared store uses them).
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Reading or writing failed; the text names the call and the file (`write /var/lib/timerd/journal:
    /// No space left on device`) or says what is damaged beyond repair.
    case unavailable(String)
    /// Another process holds the state; the text says who and what to do.
    case locked(String)
    /// The saved state is incomplete (a snapshot or journal is missing, damaged beyond repair or of
    /// a generation that does not pair with its partner) and the store's policy is to refuse
    /// (``StateLossPolicy/refuse``); the text names the files and says how to go on.
    case stateLost(String)
    /// A live timer of `owner` already has `name`: names are unique among one owner's live timers.
    case nameTaken(owner: UInt32, name: String)
    /// A new timer came with an id the store already handed out (ids are never reused, even after
    /// the timer was dropped from the history).
    case idReused(UInt64)

    /// What was wrong, for a log line or an error reply.
    public var description: String {
        switch self {
        case .unavailable(let reason), .locked(let reason), .stateLost(let reason): return reason
        case .nameTaken(let owner, let name):
            return
                "uid \(owner) already has a live timer named '\(name)'; names are unique among one owner's live timers"
        case .idReused(let id): return "id \(id) was already used; a store never hands an id out twice"
        }
    }
}
