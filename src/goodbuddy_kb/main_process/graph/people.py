"""Chinese people's names by shape: a surname (the Hundred Family Surnames, single or
compound) and one or two more characters, ending where a word boundary is (the name's end, a
punctuation mark, a verb of office such as 担任, a particle)."""

from __future__ import annotations

#: Chinese surnames (the Hundred Family Surnames, single and compound).
SURNAMES = frozenset(
    "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘葛"
    "奚范彭郎鲁韦昌马苗凤花方俞任袁柳酆鲍史唐费廉岑薛雷贺倪汤滕殷罗毕郝邬安常乐于时傅皮卞齐康"
    "伍余元卜顾孟平黄和穆萧尹姚邵湛汪祁毛禹狄米贝明臧计伏成戴谈宋茅庞熊纪舒屈项祝董梁杜阮蓝闵"
    "席季麻强贾路娄危江童颜郭梅盛林刁钟徐邱骆高夏蔡田樊胡凌霍虞万支柯昝管卢莫经房裘缪干解应宗"
    "丁宣贲邓郁单杭洪包诸左石崔吉钮龚程嵇邢滑裴陆荣翁荀羊於惠甄曲家封芮羿储靳汲邴糜松井段富巫"
    "乌焦巴弓牧隗山谷车侯宓蓬全郗班仰秋仲伊宫宁仇栾暴甘钭厉戎祖武符刘景詹束龙叶幸司韶郜黎蓟薄"
    "印宿白怀蒲邰从鄂索咸籍赖卓蔺屠蒙池乔阴胥能苍双闻莘党翟谭贡劳逄姬申扶堵冉宰郦雍璩桑桂濮牛"
    "寿通边扈燕冀郏浦尚农温别庄晏柴瞿阎充慕连茹习宦艾鱼容向古易慎戈廖庾终暨居衡步都耿满弘匡国"
    "文寇广禄阙东欧殳沃利蔚越夔隆师巩厍聂晁勾敖融冷訾辛阚那简饶空曾毋沙乜养鞠须丰巢关蒯相查后"
    "荆红游竺权逯盖益桓公"
    # common today, not in the classical list (肖 for 萧, 闫 for 阎, 付 beside 傅)
    "付肖闫覃冼邝佟庹"
)
#: Surname characters that are far more often a function word: no name is read from them.
_AMBIGUOUS = frozenset("和于从能都向后相通时应经那别以及与为在对把被是了成双全车山谷国文公元家")
SURNAMES = SURNAMES - _AMBIGUOUS
COMPOUND_SURNAMES = frozenset(
    [
        "欧阳",
        "司马",
        "上官",
        "诸葛",
        "东方",
        "皇甫",
        "尉迟",
        "公孙",
        "令狐",
        "慕容",
        "夏侯",
        "司徒",
        "端木",
        "长孙",
        "宇文",
    ]
)
#: Verbs of office after a name introduced by 由 (由郦佳担任, 由阮小溪带领).
OFFICE_VERBS = ("担任", "兼任", "带领", "牵头", "负责", "领导", "主持", "分管", "主管")
#: Words that may follow a whole name (and so end it).
_AFTER_NAME = (
    *OFFICE_VERBS,
    "全面",
    "审批",
    "批准",
    "汇报",
    "同意",
    "签字",
    "办公",
    "联系",
    "分机",
)
_AFTER_CHAR = frozenset("的和与及等、为是在兼任（(，。；：,;:")


def _boundary(text: str, at: int) -> bool:
    if at >= len(text):
        return True
    ch = text[at]
    if not ("\u4e00" <= ch <= "\u9fff"):
        return True
    return ch in _AFTER_CHAR or text.startswith(_AFTER_NAME, at)


#: Common words that start with a surname's character: never a person's name.
_WORDS = frozenset(
    [
        "管理",
        "负责",
        "审核",
        "审批",
        "维护",
        "处理",
        "使用",
        "工作",
        "办公",
        "领导",
        "协调",
        "执行",
        "组织",
        "服务",
        "建设",
        "研发",
        "经营",
        "运营",
        "发展",
        "安全",
        "全面",
        "全部",
        "方面",
        "方式",
        "方案",
        "方法",
        "高级",
        "时间",
        "时候",
        "程序",
        "程度",
        "包括",
        "成员",
        "成本",
        "金额",
        "文件",
        "文档",
        "计划",
        "计算",
        "计费",
        "万元",
        "江南",
        "东方",
        "明年",
        "明天",
        "和平",
        "于是",
        "应用",
        "相关",
        "后续",
        "后期",
        "关于",
        "关系",
        "国家",
        "国际",
        "通过",
        "通知",
        "能力",
        "都市",
        "文化",
        "张贴",
        "单位",
        "单独",
        "项目",
        "钱款",
    ]
)


def chinese_name(text: str, start: int) -> int | None:
    """End of a Chinese person's name starting at ``start`` (surname + one or two characters
    ending at a word boundary), or None when no whole name starts there."""
    surname = 2 if text[start : start + 2] in COMPOUND_SURNAMES else 1
    if surname == 1 and text[start : start + 1] not in SURNAMES:
        return None
    short, long = start + surname + 1, start + surname + 2
    if any(not ("\u4e00" <= c <= "\u9fff") for c in text[start:short]) or short > len(text):
        return None
    if text[start:short] in _WORDS or text[short - 1] in _AFTER_CHAR:
        return None
    if text.startswith(_AFTER_NAME, short) or (short == len(text)):
        return short
    long_ok = long <= len(text) and "\u4e00" <= text[long - 1] <= "\u9fff"
    if long_ok and text[long - 1] not in _AFTER_CHAR and _boundary(text, long):
        return long
    if _boundary(text, short):
        return short
    return None
