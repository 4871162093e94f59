import XCTest

// The store contract suite lands in the next commit.
