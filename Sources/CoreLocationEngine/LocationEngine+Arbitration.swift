extension LocationEngine {
    /// How fast, metres per second, a fix's uncertainty is taken to grow with its age when two sources compete
    /// (a walker's speed: a minute-old Wi-Fi fix of 100 m counts as 160 m).
    static let accuracyAgeing = 1.0
    /// How much better, as a fraction of the current fix's accuracy, a challenger must be (hysteresis).
    static let switchMargin = 0.25

    /// When several sources report (GNSS and Wi-Fi, Wi-Fi and IP, a source and its fallback), which fix is
    /// delivered (docs/decisions/0025): the source currently delivering keeps the stream unless a fix from
    /// another source is better than the current source's last fix *aged* — its accuracy plus its age ×
    /// `accuracyAgeing` — by more than `switchMargin` of the current accuracy. The current source loses the
    /// stream at once when it is off, unavailable or finished. Two similar sources reporting in turn therefore
    /// never alternate (no flapping): the challenger must be clearly better, or the current fix old.
    ///
    /// - Returns: true when `fix` from `id` must not be delivered.
    func keepsCurrentSource(over fix: Fix, from id: SourceID, at now: Double) -> Bool {
        guard let current = deliveringSource, current != id, let state = sources[current],
            state.powered, state.isAvailable, !state.isFinished,
            let last = state.lastFix, let lastAt = state.lastFixAt
        else { return false }
        let aged = last.horizontalAccuracy + max(0, now - lastAt) * Self.accuracyAgeing
        return fix.horizontalAccuracy >= aged - Self.switchMargin * last.horizontalAccuracy
    }
}
