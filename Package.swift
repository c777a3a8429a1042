// swift-tools-version:6.1
// The timer service: the libraries DatePicking (picker model), TimerModel (shared rules), TimerProtocol
// (wire), Countdown (engine), TimerService (routing, subscriptions) and TimerStorage (stores), the timerd
// daemon and the timerctl CLI.
// No package dependencies: the toolchain's Foundation, Dispatch, Synchronization and Glibc only.
//
// Trait `PostgreSQL` (off by default): links libpq (Debian's libpq-dev) into TimerPostgres, so that
// `timerd --store postgresql://…` works. Without it the file store is the only store and nothing needs
// a C library beyond libc: `swift build` on a machine with only the Swift toolchain. CI, the tests
// (scripts/test) and the Debian package build with `--traits PostgreSQL,Notifications`.
//
// Trait `Notifications` (off by default): links libsystemd's sd-bus (Debian's libsystemd-dev) into
// TimerNotifier, so that `timerctl notifier` can show desktop notifications over D-Bus. Without it
// `timerctl notifier` exits 69 and says how to build with it.
import PackageDescription

let package = Package(
    name: "timerd",
    products: [
        .library(name: "DatePicking", targets: ["DatePicking"]),
        .library(name: "TimerModel", targets: ["TimerModel"]),
        .library(name: "CalendarEvents", targets: ["CalendarEvents"]),
        .library(name: "TimerProtocol", targets: ["TimerProtocol"]),
        .library(name: "Countdown", targets: ["Countdown"]),
        .library(name: "TimerService", targets: ["TimerService"]),
        .library(name: "TimerStorage", targets: ["TimerStorage"]),
        .library(name: "TimerPostgres", targets: ["TimerPostgres"]),
        .library(name: "TimerClient", targets: ["TimerClient"]),
        .executable(name: "timerd", targets: ["timerd"]),
        .executable(name: "timerctl", targets: ["timerctl"]),
        .executable(name: "timerpick", targets: ["timerpick"]),
    ],
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "The PostgreSQL store (timerd --store): links libpq, PostgreSQL's C client (libpq-dev)."),
        .trait(
            name: "Notifications",
            description:
                "Desktop notifications (timerctl notifier): links libsystemd's sd-bus, its D-Bus client (libsystemd-dev)."
        ),
    ],
    targets: [
        // Exposes the Linux headers that Glibc's module leaves out (epoll, timerfd, SO_PEERCRED's ucred).
        // Headers only: everything it declares lives in the C library itself.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(name: "DatePicking"),
        // systemd.time(7) calendar expressions: parsing, the normalized form and next elapses (Foundation for
        // time-zone offsets; pure otherwise).
        .target(name: "CalendarEvents"),
        // The vocabulary every layer shares (states, names, references, the duration grammar and its
        // limits, progress snapshots, ISO 8601 text, the engine's error): FoundationEssentials only.
        .target(name: "TimerModel"),
        // The wire: JSON-RPC messages, the one JSON reader and writer, TimerInfo. FoundationEssentials only.
        .target(name: "TimerProtocol", dependencies: ["TimerModel"]),
        // The engine (timers, groups, deadline queue, ProgressTree): values and typed events, never wire text.
        .target(name: "Countdown", dependencies: ["TimerModel", "CalendarEvents"]),
        // Request routing and subscriptions, no I/O: engine values in, protocol lines out.
        .target(name: "TimerService", dependencies: ["Countdown", "TimerModel", "TimerProtocol"]),
        // The OS layer: owned descriptors, Errno, every syscall, epoll, timerfd, sockets, sd_notify.
        .target(name: "TimerSystem", dependencies: ["CLinux"]),
        // The `TimerStore` protocol and its file-journal and memory implementations.
        .target(name: "TimerStorage", dependencies: ["Countdown", "TimerModel", "TimerSystem"]),
        // libpq, PostgreSQL's C client (Debian's libpq-dev), for the store several hosts share; used only
        // with the trait PostgreSQL.
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // A small connection layer over libpq and the PostgreSQL `TimerStore`. Without the trait
        // PostgreSQL its connection only throws (PostgresConnection+NotBuilt.swift) and libpq is not linked.
        .target(
            name: "TimerPostgres",
            dependencies: [
                .target(name: "CLibPQ", condition: .when(traits: ["PostgreSQL"])), "Countdown", "TimerModel",
                "TimerStorage",
            ]),
        // sd-bus, libsystemd's D-Bus client (Debian's libsystemd-dev), for desktop notifications; used
        // only with the trait Notifications.
        .systemLibrary(
            name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // `timerctl notifier`: a typed wrapper over sd-bus and the notifier (timer events in, one desktop
        // notification per timer out, its buttons back as requests). Without the trait Notifications
        // its bus only throws (SessionBus+NotBuilt.swift) and libsystemd is not linked.
        .target(
            name: "TimerNotifier",
            dependencies: [
                .target(name: "CSystemd", condition: .when(traits: ["Notifications"])), "TimerClient", "TimerModel",
                "TimerProtocol", "TimerSystem",
            ]),
        // The one reader of time zones (TZ, /etc/localtime, POSIX TZ strings) for timerd and timerpick;
        // Foundation's full zone data through DatePicking, so timerctl does not link it.
        .target(name: "ZoneReading", dependencies: ["DatePicking", "TimerProtocol", "TimerSystem"]),
        // The command-line table and scanner shared by timerctl and timerd (help is rendered from it).
        .target(name: "CommandLineTable"),
        // The composition root, event loop, connections, configuration and systemd integration.
        .target(
            name: "TimerDaemon",
            dependencies: [
                "Countdown", "TimerService", "TimerProtocol", "TimerModel", "TimerStorage", "DatePicking",
                "TimerSystem", "CommandLineTable", "TimerPostgres", "ZoneReading",
            ]
        ),
        // The Swift client of timerd's socket: discovery and autostart, the one writer of request lines,
        // typed replies and errors, a synchronous connection (timerctl's) and the async API over it
        // (blocking reads on Dispatch queues). No DatePicking and no Countdown, for timerctl's sake.
        .target(name: "TimerClient", dependencies: ["TimerModel", "TimerProtocol", "TimerSystem"]),
        // No DatePicking and no Countdown here: they would load ICU and the engine into every timerctl
        // run; timerd resolves local `--at` times instead (docs/performance.md).
        .target(
            name: "TimerControl",
            dependencies: [
                "TimerClient", "TimerModel", "TimerProtocol", "TimerSystem", "CommandLineTable", "TimerNotifier",
            ]),
        .executableTarget(name: "timerd", dependencies: ["TimerDaemon"]),
        .executableTarget(name: "timerctl", dependencies: ["TimerControl"]),
        // The terminal date picker `timerctl pick` execs: its own binary, so that ICU stays out of timerctl.
        .executableTarget(
            name: "timerpick",
            dependencies: [
                "DatePicking", "TimerModel", "TimerProtocol", "TimerSystem", "TimerControl", "CommandLineTable",
                "CalendarEvents", "ZoneReading",
            ]
        ),
        .executableTarget(
            name: "DatePickingBenchmark", dependencies: ["DatePicking"], path: "Benchmarks/DatePickingBenchmark"),
        .executableTarget(
            name: "EngineBenchmark", dependencies: ["Countdown", "TimerModel"],
            path: "Benchmarks/EngineBenchmark"),
        .executableTarget(name: "DaemonBenchmark", path: "Benchmarks/DaemonBenchmark"),
        .executableTarget(
            name: "CalendarBenchmark", dependencies: ["CalendarEvents"], path: "Benchmarks/CalendarBenchmark"),
        // Helpers shared by the test targets (a seeded generator, fixed instants, a reference reply
        // reader); not in any product.
        .target(name: "TestSupport", dependencies: ["TimerProtocol", "CLinux"], path: "Tests/TestSupport"),
        // TimerProtocol for the one local-time grammar, which the resolver's tests read typed text with.
        .testTarget(
            name: "DatePickingTests", dependencies: ["DatePicking", "TimerProtocol", "TestSupport"],
            exclude: ["Resources"]),
        .testTarget(name: "TimerModelTests", dependencies: ["TimerModel", "TestSupport"]),
        .testTarget(name: "CalendarEventsTests", dependencies: ["CalendarEvents", "TestSupport"]),
        .testTarget(name: "TimerProtocolTests", dependencies: ["TimerProtocol", "TimerModel", "TestSupport"]),
        // TimerService only for `TimerInfo(snapshot)`: the engine tests state expected timers in wire form.
        .testTarget(
            name: "CountdownTests",
            dependencies: ["Countdown", "TimerModel", "TimerProtocol", "TimerService", "TestSupport"]),
        .testTarget(
            name: "TimerServiceTests",
            dependencies: ["TimerService", "Countdown", "TimerModel", "TimerProtocol", "TestSupport"]),
        .testTarget(
            name: "TimerStorageTests",
            dependencies: ["TimerStorage", "TimerPostgres", "Countdown", "TimerModel", "TimerSystem", "TestSupport"]),
        .testTarget(name: "CommandLineTableTests", dependencies: ["CommandLineTable"]),
        .testTarget(
            name: "TimerNotifierTests", dependencies: ["TimerNotifier", "TimerModel", "TimerProtocol", "TimerClient"]),
        // Needs a PostgreSQL server (scripts/pg-cluster; TIMERD_TEST_PG).
        .testTarget(
            name: "TimerPostgresTests",
            dependencies: ["TimerPostgres", "TimerStorage", "Countdown", "TimerModel", "TestSupport"]),
        .testTarget(
            name: "TimerDaemonTests",
            dependencies: [
                "TimerDaemon", "Countdown", "TimerModel", "TimerProtocol", "TimerService", "TimerStorage",
                "TimerSystem", "TimerPostgres", "ZoneReading",
                "TestSupport",
            ],
            exclude: ["Golden"]),
        .testTarget(
            name: "TimerControlTests",
            dependencies: ["TimerControl", "TimerClient", "TimerModel", "TimerProtocol", "CommandLineTable"],
            exclude: ["Golden"]),
        .testTarget(
            name: "TimerPickTests", dependencies: ["timerpick", "timerctl", "timerd", "DatePicking", "TimerModel"]),
        // Runs the built binaries; depending on the executables makes `swift test` build them. TimerClient's
        // tests are here too: they need the real timerd this harness starts.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TimerClient", "TimerModel", "TimerProtocol", "TimerService", "TimerSystem", "TestSupport", "timerd",
                "timerctl",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
