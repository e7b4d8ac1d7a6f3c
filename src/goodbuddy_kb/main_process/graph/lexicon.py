"""The word lists of local name discovery: characters and words that end a Chinese name
(function words, verbs, relation words), words that contain such a character but belong inside
a name (数据, 经理), qualifiers before a name, generic words that end in a cue (城市, 西部),
units after a number, and the titles of a unit's head."""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Characters that always end a Chinese name when scanning away from a cue.
CJK_STOPS = frozenset(
    "由的和与及在对向将把被为是了从至到或并给跟每各该本其此请已未不也都而且则如若当以再"
)
#: Function characters that end a name unless they form a word with a neighbour (the words
#: below): 数据智能部 and 供应链管理部 keep their 据 and 应, 以财务部 loses its 以.
SOFT_STOPS = frozenset("按经须需应据归同等于有报交个种位名条项件次任今兼之辆前")
ANY_STOP = CJK_STOPS | SOFT_STOPS
SOFT_WORDS = words(
    "以太 按摩 经理 经营 经济 经销 经贸 经纪 财经 神经 须知 需求 供应 应用 响应"
    " 应急 对应 适应 反应 应收 应付 数据 依据 证据 票据 单据 据点 归档 回归 合同"
    " 协同 同步 共同 同业 等级 平等 对外 对公 在线 参与 方向 面向 自由 理由 及时"
    " 被保险 申请 邀请 请假 聘请 请示 成都 首都 京都 当地 从业 将军 有限 报销 报表 报告"
    " 情报 报价 简报 周报 月报 日报 报名 交通 交易 交付 外交 提交 递交 交换 个人 个体 各种"
    " 品种 种类 种子 单位 岗位 部位 地位 职位 名称 名单 条例 条款 项目 事项 款项 文件 条件"
    " 软件 硬件 固件 组件 插件 部件 配件 附件 事件 案件 证件 邮件 次数 报警 警报 任务 主任 责任 信任 任何 任期 今天 今年 至今 如今 兼职"
    " 之江 辆数 前台 前端 前进 前期 前提 前面 提前 目前 以前 之前 前夕 前线 前沿 前景 前海"
)
#: Verbs and modal words that introduce the name after them: a name never runs across one
#: (…必须使用公司邮箱, …内报告信息安全部, …前告知直属主管).
VERB_STOPS = words(
    "通过 使用 告知 报告 签署 需要 必须 按照 根据 经过 提交 联系 前往 参加 担任"
    " 超过 达到 低于 高于 不得 可以 应当 须经 需经 交给 交由 发给 抄送 通知 咨询"
    " 致电 登录 访问 申请 完成 负责 简称 移交 发往 拨打 进出 共有 设有 推行 实行 实施 颁布"
    " 发布 制定 建立 成立 设立 创立 创办 组建 驻扎 撤销 撤区 位于 延迟 推迟"
    # verbs, time words and kinship words that stand before names in general prose
    " 收购 兼并 合并 罢免 要求 兴建 修建 建造 分成 距离 前称 改称 称为 名为 叫做 成为 加入"
    " 进入 离开 来到 回到 抵达 参观 出任 就任 当选 任命 委任 获得 赢得 击败 战胜 打败 领导"
    " 带领 创建 解散 合作 签约 签订 效力 转会 加盟 毕业 就读 考入 任职 供职 隶属 属于 包括"
    " 包含 拥有 控制 经营 投资 出售 卖给 买下 租用 采用 开发 研制 生产 制造 推出 发行 出版"
    " 发表 播出 上映 举办 举行 主办 承办 参与 出席 支持 反对 批评 宣布 表示 认为 指出 提出"
    " 建议 决定 批准 同意 接受 拒绝 开始 结束 继续 停止 恢复 改为 改名 更名 易名 合称 又称"
    " 俗称 统称 亦称 旧称 原称 史称 号称 自称 人称 世称 协助 帮助 跟随 追随 返回 迁往 迁至"
    " 搬到 移居 定居 居住 出生 去世 逝世 当时 后来 此后 之后 之前 其后 随后 最初 最终 目前"
    " 现在 现今 同年 次年 翌年 年初 年底 年代 早年 晚年 父亲 母亲 哥哥 姐姐 弟弟 妹妹 妻子"
    " 丈夫 儿子 女儿 师父 许多 很多 一些 部分 整套 整个 全体 各个 多个 几个 兴建 原址 隶属于"
    " 逾期 过期 到期 列出 重要 主要 次要 大型 小型 中型 著名 知名 最大 最早 唯一 国内 国外 提供"
    " 现任 历任 曾任 继任 兼任 造成 率领 主导 导致 随即 立即"
    # what a rule permits or refuses (均可报销, 不予报销): a verb follows, no name
    " 均可 方可 即可 亦可 予以 不予 准予 给予"
)
#: What follows a family's name in a taxonomy (锦葵科猴面包树属, 葫芦科植物): not a unit.
TAXON_AFTER = re.compile(r"[\u4e00-\u9fff]{1,5}属|植物|动物")
#: A name starting with a Latin letter right after a capitalised Latin word and a space.
LATIN_TAIL = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9]* [A-Za-z]$")
#: What stands before 栋 in a building's name: a letter, a number or 号 (A栋, 3号栋, 十栋).
NUMBERED = re.compile(r"[A-Za-z0-9一二三四五六七八九十号]")
#: Adverbs of time and manner between a clause's subject and its verb (该平台目前归…管理): never
#: the end of a name (all of two characters).
TIME_ADVERBS = ("目前", "现在", "当前", "已经", "一律", "统一", "同时", "另外", "今后", "仍然")
#: Words of a relation pattern that commonly sit inside names, never a name boundary.
NAME_WORDS = words("管理 主管 模块 子系统 服务 平台 规定 标准 办公 部门 下属 下属部门 组成 基于")
#: Qualifiers in front of a name that are not part of it (新版费用报销流程, 当地规定).
QUALIFIERS = words(
    "当地 有关 相关 上述 其他 其它 各项 各类 新版 旧版 现行 最新 部门 任何 所有 下属 直属 公司"
)
#: Titles of a unit's head right after its name (采购科科长): the name is a unit's.
HEAD_TITLES = ("科长", "部长", "组长", "处长", "经理", "主任", "总监", "负责人")
#: Units after a number: the number belongs to a date or a count, never to a name.
UNITS = frozenset("年月日号时点分秒天周个名位人元岁次届期千米辆架艘只张座间套批种类项条件家场")
NUMERALS = frozenset("一二三四五六七八九十百千万两几数多每某")
#: A name that ends in these is a generic noun (一线城市、其他城市、西部), not a name.
GENERIC_ENDS = tuple(
    [
        "城市",
        "斯科",
        "亚科",
        "超市",
        "都市",
        "上市",
        "股市",
        "门市",
        "夜市",
        "集市",
        "地区",
        "社区",
        "市区",
        "山区",
        "城区",
        "郊区",
        "景区",
        "灾区",
        "辖区",
        "西部",
        "南部",
        "北部",
        "东部",
        "中部",
        "头部",
        "底部",
        "腹部",
        "背部",
        "胸部",
        "尾部",
        "上部",
        "下部",
        "局部",
        "基部",
        "顶部",
        "内部",
        "外部",
        "干部",
        "有限公司",
        "股份公司",
        "分公司",
        "子公司",
        "总公司",
        "母公司",
        "本公司",
        "该公司",
    ]
)
#: A one-character cue followed by these characters is the start of another word (部门, 处理,
#: 市场), not the end of a name.
NOT_A_NAME_END = words(
    "部门 部分 部署 部件 处理 处于 处置 处罚 科技 科学 科目 市场 市值 省份 省级 组织 组长 组成"
    " 科长 部长 处长 组员 组建 区域 区分 区别 楼层 楼梯 栋楼 总部门 工厂区 市委 省委 区委"
    " 县委 市长 省长 区长 市民 市政 市级 省级 区级 部委"
)

#: Defined-term patterns ("X（简称 Y）", "所谓 X", "X means").
DEFINED = [
    re.compile(
        r"([\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ]{1,30})[（(]\s*(?:简称|以下简称)[“\"]?([^）)”\"]{1,20})[”\"]?\s*[）)]"
    ),
    re.compile(r"所谓[“\"]?([\u4e00-\u9fffA-Za-z0-9]{2,20})[”\"]?"),
    re.compile(r"[“\"]([^”\"]{2,30})[”\"]\s*(?:是指|指的是|means|refers to)"),
    re.compile(r"\b([A-Z][A-Za-z0-9-]*(?:\s+[A-Z][A-Za-z0-9-]*){0,4})\s+(?:means|refers to)\b"),
]
LATIN_STOPS = frozenset(
    [
        "The",
        "A",
        "An",
        "Our",
        "This",
        "That",
        "These",
        "Those",
        "Each",
        "Every",
        "Any",
        "All",
        "If",
        # prepositions that open a sentence before a name ("For group systems …")
        "For",
        "In",
        "On",
        "At",
        "From",
        "With",
        "By",
        "When",
        "Its",
        "Their",
        "Your",
        # interrogatives that open a question before a name ("Which team runs …?" in a FAQ)
        "Which",
        "What",
        "Whose",
    ]
)

#: A word each defined-term pattern needs: the regular expression runs only where it occurs.
DEFINED_NEEDS = (
    ("简称",),
    ("所谓",),
    ("是指", "指的是", "means", "refers to"),
    ("means", "refers to"),
)


#: Company forms written with a full stop that belongs to the name (Acme Widgets Ltd.).
ABBREVIATED = ("Ltd", "Inc", "Corp", "Co", "Pty", "Bhd")
ABBREVIATED_DOT = re.compile(r"\b(?:Ltd|Inc|Corp|Co|Pty|Bhd)\.")
