"""The library list: its item model and the name and delete dialogs."""
