"""The database: tables and records, the write-ahead journal, migrations, backups."""
