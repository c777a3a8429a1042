// swift-tools-version:6.0
// The timer service: the DatePicking and Countdown libraries, the timerd daemon and the timerctl CLI.
// No package dependencies: the toolchain's Foundation, Dispatch, Synchronization and Glibc only.
import PackageDescription

let package = Package(
    name: "timerd",
    products: [
        .library(name: "DatePicking", targets: ["DatePicking"]),
        .library(name: "Countdown", targets: ["Countdown"]),
        .executable(name: "timerd", targets: ["timerd"]),
        .executable(name: "timerctl", targets: ["timerctl"]),
        .executable(name: "timerpick", targets: ["timerpick"]),
    ],
    targets: [
        // Exposes the Linux headers that Glibc's module leaves out (epoll, timerfd, SO_PEERCRED's ucred).
        // Headers only: everything it declares lives in the C library itself.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(name: "DatePicking"),
        .target(name: "Countdown"),
        .target(name: "TimerSystem", dependencies: ["CLinux"]),
        .target(name: "TimerDaemon", dependencies: ["Countdown", "DatePicking", "TimerSystem", "CLinux"]),
        // No DatePicking here: it links full Foundation (ICU), which would double timerctl's start-up
        // time; timerd resolves local `--at` times instead (docs/performance.md).
        .target(name: "TimerControl", dependencies: ["Countdown", "TimerSystem"]),
        .executableTarget(name: "timerd", dependencies: ["TimerDaemon"]),
        .executableTarget(name: "timerctl", dependencies: ["TimerControl"]),
        // The terminal date picker `timerctl pick` execs: its own binary, so that ICU stays out of timerctl.
        .executableTarget(name: "timerpick", dependencies: ["DatePicking"]),
        .executableTarget(
            name: "DatePickingBenchmark", dependencies: ["DatePicking"], path: "Benchmarks/DatePickingBenchmark"),
        .executableTarget(name: "EngineBenchmark", dependencies: ["Countdown"], path: "Benchmarks/EngineBenchmark"),
        .executableTarget(name: "DaemonBenchmark", path: "Benchmarks/DaemonBenchmark"),
        .testTarget(name: "DatePickingTests", dependencies: ["DatePicking"], exclude: ["Resources"]),
        .testTarget(name: "CountdownTests", dependencies: ["Countdown"]),
        .testTarget(name: "TimerDaemonTests", dependencies: ["TimerDaemon", "Countdown", "TimerSystem"]),
        .testTarget(name: "TimerControlTests", dependencies: ["TimerControl", "Countdown"]),
        .testTarget(name: "TimerPickTests", dependencies: ["timerpick", "timerctl", "timerd", "DatePicking"]),
        // Runs the built binaries; depending on the executables makes `swift test` build them.
        .testTarget(name: "EndToEndTests", dependencies: ["Countdown", "TimerSystem", "timerd", "timerctl"]),
    ],
    swiftLanguageModes: [.v6]
)
