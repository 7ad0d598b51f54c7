"""Schema migrations, one module per database: `sqlite` and `postgres`.

Each module holds `MIGRATIONS`, a tuple whose item `n - 1` brings a store from schema version
`n - 1` to `n`. Append new migrations; never edit one that has shipped."""
