"""The library list: its item model, its pane (list, buttons and their actions), the name and
delete dialogs, and the selected library's header."""
