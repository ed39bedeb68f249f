extension Duration {
    /// The duration in seconds, its fraction included: what a timeout in seconds, a
    /// `Timestamp`'s arithmetic or a rate per second takes.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, its fraction included: what logs and reports print.
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
