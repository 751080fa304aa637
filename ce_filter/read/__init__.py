"""Reading a page: its bytes decoded, the pre-parse checks, the parse and the walk that cuts it
into blocks."""
