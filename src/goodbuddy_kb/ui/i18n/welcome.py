"""The first run's strings in zh-CN and en: the welcome page, the sample library's tips, the
Help menu and About (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

WELCOME_STRINGS: dict[str, tuple[str, str]] = {
    "welcome.title": ("欢迎使用 GoodBuddy 知识库", "Welcome to GoodBuddy KB"),
    "welcome.intro": (
        "放入公司的制度、手册和资料，用中文或英文提问，每个答案都注明出处。",
        "Bring in your company's rules, manuals and documents, ask in Chinese or English, and "
        "every answer shows where it comes from.",
    ),
    "welcome.add_folder": ("添加文档文件夹…", "Add a folder of documents…"),
    "welcome.add_folder.hint": (
        "选择一个文件夹，其中的 Word、PDF、Markdown 等文档会导入一个新的知识库。",
        "Choose a folder: its Word, PDF, Markdown and other documents go into a new library.",
    ),
    "welcome.sample": ("试用示例库", "Try the sample library"),
    "welcome.sample.hint": (
        "几份中英文公司制度示例（差旅报销、休假、IT 帮助、数据安全），复制到本机后即可提问。",
        "A few company rules in Chinese and English (travel and expenses, leave, IT help, data "
        "security), copied to this computer for you to ask about.",
    ),
    "welcome.local": (
        "你的文档、索引和提问都保存在这台电脑上；只有你自己设置的在线模型才会收到文字。",
        "Your documents, their index and your questions stay on this computer; only an online "
        "model you set up yourself is sent any text.",
    ),
    "welcome.language": ("界面语言", "Language"),
    "welcome.folder_dialog": ("选择文档文件夹", "Choose a folder of documents"),
    "welcome.working": ("正在创建知识库…", "Creating the library…"),
    "guide.importing": ("正在导入示例文档…", "Importing the sample documents…"),
    "guide.ready": ("示例库已就绪。试着问：", "The sample library is ready. Try asking:"),
    "guide.graph": ("查看知识图谱", "Show the knowledge graph"),
    "guide.close": ("关闭提示", "Close these tips"),
    "menu.help": ("帮助(&H)", "&Help"),
    "menu.quit": ("退出 GoodBuddy 知识库(&Q)", "&Quit GoodBuddy KB"),
    "menu.about": ("关于 GoodBuddy 知识库(&A)…", "&About GoodBuddy KB…"),
    "about.title": ("关于 GoodBuddy 知识库", "About GoodBuddy KB"),
    "about.version": ("版本 {version}", "Version {version}"),
    "about.data_dir": ("数据目录：{path}", "Data directory: {path}"),
    "about.models": ("内置模型", "Bundled models"),
    "about.model": ("{name}：{licence} 许可证", "{name}: {licence} licence"),
    "about.notices": ("第三方软件声明", "Third-party notices"),
    "about.notices.heading": (
        "GoodBuddy 知识库 {version} — 第三方软件声明",
        "GoodBuddy KB {version} — third-party notices",
    ),
    "about.notices.models": ("内置模型：", "Bundled models:"),
    "about.notices.in": ("随 {package} 提供", "in {package}"),
    "about.notices.packages": ("运行时软件包（{count} 个）：", "Runtime packages ({count}):"),
    "about.loading": ("正在读取…", "Loading…"),
    "about.close": ("关闭", "Close"),
}
