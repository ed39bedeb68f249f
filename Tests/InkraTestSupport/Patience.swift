import Foundation

/// How long a test waits for what should come (a server's answer, a child's line, moto's reply)
/// before it calls it a hang: far above any honest duration. Swift Testing runs the whole suite at
/// once, hundreds of tests and their child processes on two cores, and the machine may be busy
/// with other work besides (`.ci/run` runs the suite beside a CPU load of twice the cores), so an
/// honest wait can last minutes; a test's verdict never depends on how fast the machine is.
package enum Patience {
    /// The wait, as a duration.
    package static let hang: Duration = .seconds(600)
    /// The wait, in seconds.
    package static let seconds: TimeInterval = 600
}
