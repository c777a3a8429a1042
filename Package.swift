// swift-tools-version:6.0
// The timer service: the DatePicking and Countdown libraries, the timerd daemon and the timerctl CLI.
// No package dependencies: the toolchain's Foundation, Dispatch, Synchronization and Glibc only.
import PackageDescription

let package = Package(
    name: "timerd",
    products: [
        .library(name: "DatePicking", targets: ["DatePicking"]),
        .library(name: "Countdown", targets: ["Countdown"]),
        .library(name: "TimerStorage", targets: ["TimerStorage"]),
        .executable(name: "timerd", targets: ["timerd"]),
        .executable(name: "timerctl", targets: ["timerctl"]),
    ],
    targets: [
        // Exposes the Linux headers that Glibc's module leaves out (epoll, timerfd, SO_PEERCRED's ucred).
        // Headers only: everything it declares lives in the C library itself.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(name: "DatePicking"),
        .target(name: "Countdown"),
        .target(name: "TimerSystem", dependencies: ["CLinux"]),
        // The `TimerStore` protocol and its file-journal and memory implementations.
        .target(name: "TimerStorage", dependencies: ["Countdown", "TimerSystem"]),
        .target(
            name: "TimerDaemon",
            dependencies: ["Countdown", "DatePicking", "TimerStorage", "TimerSystem", "CLinux", "CommandLineTable"]),
        // No DatePicking here: it links full Foundation (ICU), which would double timerctl's start-up
        // time; timerd resolves local `--at` times instead (docs/performance.md).
        .target(name: "TimerControl", dependencies: ["Countdown", "TimerSystem", "CommandLineTable"]),
        // s9ctl: the command-line table and scanner shared by timerctl and timerd, and shared test helpers.
        .target(name: "CommandLineTable"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CommandLineTableTests", dependencies: ["CommandLineTable"]),
        .executableTarget(name: "timerd", dependencies: ["TimerDaemon"]),
        .executableTarget(name: "timerctl", dependencies: ["TimerControl"]),
        .executableTarget(
            name: "DatePickingBenchmark", dependencies: ["DatePicking"], path: "Benchmarks/DatePickingBenchmark"),
        .executableTarget(name: "EngineBenchmark", dependencies: ["Countdown"], path: "Benchmarks/EngineBenchmark"),
        .executableTarget(name: "DaemonBenchmark", path: "Benchmarks/DaemonBenchmark"),
        .testTarget(name: "DatePickingTests", dependencies: ["DatePicking", "TestSupport"], exclude: ["Resources"]),
        .testTarget(name: "CountdownTests", dependencies: ["Countdown", "TestSupport"]),
        .testTarget(
            name: "TimerDaemonTests",
            dependencies: ["TimerDaemon", "Countdown", "TimerStorage", "TimerSystem", "TestSupport"],
            exclude: ["Golden"]),
        .testTarget(name: "TimerStorageTests", dependencies: ["TimerStorage", "Countdown", "TimerSystem", "TestSupport"]),
        .testTarget(
            name: "TimerControlTests", dependencies: ["TimerControl", "Countdown", "CommandLineTable"],
            exclude: ["Golden"]),
        // Runs the built binaries; depending on the executables makes `swift test` build them.
        .testTarget(
            name: "EndToEndTests", dependencies: ["Countdown", "TimerSystem", "TestSupport", "timerd", "timerctl"]),
    ],
    swiftLanguageModes: [.v6]
)
