/// Trimming by a plain string of characters (`"\n "`), without Foundation's `CharacterSet`.
extension String {
    package func trimmingCharacters(in set: String) -> String {
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
