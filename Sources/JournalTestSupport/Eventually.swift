import Foundation

/// Waits for a condition without a fixed sleep: polls it until it holds or `timeout` seconds
/// pass, and returns whether it held.
public func eventually(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}
