// `import FirebaseAuth` alone gives app code Foundation's types (its Objective-C module re-exports Foundation), so
// FlintAuth re-exports Foundation too: a file that imports only FlintAuth can use `URL`, `Data`, `Date`, `NSError`, ….
@_exported import Foundation
