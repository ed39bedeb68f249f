/// Where an ``InMemoryTable`` records each operation's changes before they take effect, so that a
/// process killed at any moment loses no write it acknowledged (the emulator's `--state` keeps a
/// write-ahead log this way).
package protocol TableJournal: Sendable {
    /// Records one operation's changes durably, in commit order (it is called under the table's
    /// lock). A throw fails the operation, which then changes nothing.
    func record(_ changes: [TableChange]) throws
}

/// One item's change: its key attributes and the item as it is after the operation (`nil` when
/// deleted). Applying the same change twice gives the same table.
package struct TableChange: Sendable, Hashable {
    /// The key attributes.
    package var key: Item
    /// The item after the operation, or `nil` when it was deleted.
    package var item: Item?

    /// A change.
    package init(key: Item, item: Item?) {
        self.key = key
        self.item = item
    }
}
