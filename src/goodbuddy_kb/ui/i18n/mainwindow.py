"""The main window's strings in zh-CN and en: the backend banner and status line, the
Settings menu, and the tabs (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

MAINWINDOW_STRINGS: dict[str, tuple[str, str]] = {
    "backend.connecting": ("正在启动后台服务…", "Starting the backend…"),
    # the window built anew (a language switch) while the backend runs, until the libraries list
    "window.loading": ("正在加载…", "Loading…"),
    "backend.connected": ("后台服务已连接（进程 {pid}）", "Backend connected (process {pid})"),
    "backend.down": (
        "后台服务已停止：{reason}。你的数据没有丢失。",
        "The backend stopped: {reason}. Your data is safe.",
    ),
    "backend.down.plain": (
        "后台服务意外停止。你的数据没有丢失。",
        "The backend stopped unexpectedly. Your data is safe.",
    ),
    "backend.restart": ("重新启动后台服务", "Restart the backend"),
    "tab.documents": ("文档与来源", "Documents && sources"),
    "tab.tasks": ("任务中心", "Tasks"),
    "tab.settings": ("设置", "Settings"),
    "menu.diagnostics": ("诊断信息(&D)…", "&Diagnostics…"),
    "menu.settings": ("设置(&S)", "&Settings"),
    "menu.connections": ("模型连接(&M)…", "&Model connections…"),
    "menu.external_tools": ("外部 AI 工具（MCP）(&E)…", "&External AI tools (MCP)…"),
    "menu.language": ("界面语言(&L)", "&Language"),
    "menu.theme": ("深色主题(&T)", "Dark &theme"),
    "menu.language.applied": ("界面语言已切换为中文。", "The interface is now in English."),
    # said in the language the window is in, naming the one chosen
    "menu.language.after_reply": (
        "回答结束后切换为 {language}。",
        "The language changes to {language} when this answer ends.",
    ),
    "top.knowledge": ("知识库", "Knowledge"),
    "top.chat": ("对话", "Chat"),
}
