"""The main window: the library list beside the library's tabs, the menus and the status bar."""
