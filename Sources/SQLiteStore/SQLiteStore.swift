import JuiceMakerCore
import CSQLite
/// Placeholder until the SQLite store lands.
enum SQLiteStorePlaceholder { static let version = sqlite3_libversion_number() }
