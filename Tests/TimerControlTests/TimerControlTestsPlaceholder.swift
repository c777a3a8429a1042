// The TimerControlTests target is declared in Package.swift but had no sources, which SwiftPM
// reports as an error (on a fresh checkout) or a warning. This file only makes the target build.
import Testing
