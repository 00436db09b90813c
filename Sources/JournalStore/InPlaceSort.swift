/// Sorts `items` in place by `before` (a strict order), with no memory beyond the array, where
/// the standard library's stable sort takes a buffer of half of it (at a million list rows,
/// 16 MB). Introsort: quicksort on the median of three, insertion sort for short runs, and
/// heapsort for a run that quicksort splits badly, so O(n log n) whatever the order. Heapsort
/// alone, on a million rows, was a fifth of `list`: it reads the array all over.
func sortInPlace<T>(_ items: inout [T], by before: (T, T) -> Bool) {
  items.withUnsafeMutableBufferPointer { items in
    var depth = 0
    var count = items.count
    while count > 1 {
      depth += 2
      count >>= 1
    }
    introsort(items, 0, items.count, depthLeft: depth, before)
  }
}

/// Sorts `items[start..<end]`, falling back to heapsort once `depthLeft` partitions have been
/// made (at 0, at once: the tests take that way directly).
func introsort<T>(
  _ items: UnsafeMutableBufferPointer<T>, _ start: Int, _ end: Int, depthLeft: Int,
  _ before: (T, T) -> Bool
) {
  var start = start
  var end = end
  var depthLeft = depthLeft
  while end - start > 16 {
    if depthLeft == 0 {
      heapSort(items, start, end, before)
      return
    }
    depthLeft -= 1
    // The median of the first, middle and last, moved to the start as the pivot.
    let middle = start + (end - start) / 2
    if before(items[middle], items[start]) { items.swapAt(middle, start) }
    if before(items[end - 1], items[middle]) {
      items.swapAt(end - 1, middle)
      if before(items[middle], items[start]) { items.swapAt(middle, start) }
    }
    items.swapAt(start, middle)
    // Hoare's partition around items[start]: [start, split] ≤ pivot ≤ (split, end).
    var low = start
    var high = end
    while true {
      repeat { low += 1 } while low < end && before(items[low], items[start])
      repeat { high -= 1 } while before(items[start], items[high])
      if low >= high { break }
      items.swapAt(low, high)
    }
    items.swapAt(start, high)
    // The shorter side first, by recursion; the longer by the loop: the stack stays O(log n).
    if high - start < end - high - 1 {
      introsort(items, start, high, depthLeft: depthLeft, before)
      start = high + 1
    } else {
      introsort(items, high + 1, end, depthLeft: depthLeft, before)
      end = high
    }
  }
  // Insertion sort of what is left.
  if end - start > 1 {
    for index in start + 1..<end {
      var place = index
      while place > start && before(items[place], items[place - 1]) {
        items.swapAt(place, place - 1)
        place -= 1
      }
    }
  }
}

private func heapSort<T>(
  _ items: UnsafeMutableBufferPointer<T>, _ start: Int, _ end: Int, _ before: (T, T) -> Bool
) {
  let count = end - start
  func siftDown(_ root: Int, _ end: Int) {
    var root = root
    while 2 * root + 1 < end {
      var child = 2 * root + 1
      if child + 1 < end, before(items[start + child], items[start + child + 1]) { child += 1 }
      guard before(items[start + root], items[start + child]) else { return }
      items.swapAt(start + root, start + child)
      root = child
    }
  }
  for root in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(root, count) }
  for last in stride(from: count - 1, to: 0, by: -1) {
    items.swapAt(start, start + last)
    siftDown(0, last)
  }
}
