"""A small bilingual concept lexicon, so rules written in one language or wording still meet
messages written in another ("利率" meets "收益率", "rate cut" and "美联储").

Entries are grouped as domain -> concept -> surface forms. A rule term that shares a concept
with a message word matches at reduced strength, one that only shares a domain weaker still
(see engine weights). The lexicon covers the subjects bots in this product report on; it is
vocabulary, not rules: routing still follows what the user wrote.
"""

from __future__ import annotations

from functools import lru_cache

from topic_dashboard.routing.text import STOP_EN, is_cjk, latin_sequence, normalize

LEXICON: dict[str, dict[str, str]] = {
    "finance": {
        "stock": "股票|个股|股价|股市|a股|港股|美股|中概股|板块|蓝筹|成长股|市值|涨停|跌停|上市公司|"
        "stock|stocks|share price|shares|equity|equities|stock market|ticker",
        "index": "指数|大盘|上证|上证指数|深证|深成指|创业板|科创板|沪深300|恒指|恒生|恒生指数|纳指|纳斯达克|"
        "道指|道琼斯|标普|标普500|日经|index|indices|s&p 500|nasdaq|dow|dow jones|spx|ndx|"
        "nikkei|hang seng|ftse|russell|sp500",
        "fx": "外汇|汇率|美元|人民币|日元|欧元|英镑|港币|离岸|美元指数|forex|fx|currency|exchange rate|"
        "dollar|usd|eur|jpy|cny|yen|euro|sterling|dxy",
        "rates": "利率|加息|降息|议息|收益率|国债|美债|基点|央行|美联储|联储|lpr|降准|存款准备金|"
        "interest rate|rate hike|rate cut|yield|treasury|bond|basis point|bps|fed|fomc|"
        "central bank|ecb|boj|boe|pboc|bank of england|bank of japan|人民银行|monetary policy|货币政策|"
        "gilt|gilts|bund|t-bill|yield curve|收益率曲线",
        "macro": "宏观|宏观数据|宏观经济|cpi|ppi|gdp|pmi|通胀|通缩|非农|失业率|就业数据|零售销售|经济数据|社融|"
        "macro|inflation|deflation|payroll|payrolls|nonfarm|unemployment|recession|economic data|"
        "retail sales|jobs data|jobs report|job growth|jobless claims|就业|通胀数据",
        "earnings": "财报|业绩|营收|净利润|利润|每股收益|季报|年报|中报|业绩指引|毛利率|分红|回购|"
        "earnings|revenue|eps|guidance|quarterly results|profit|net income|margin|dividend|"
        "buyback|earnings call",
        "trading": "行情|上涨|下跌|大涨|大跌|暴涨|暴跌|收涨|收跌|收盘|开盘|盘前|盘后|涨幅|跌幅|涨超|跌超|反弹|"
        "承压|走高|走低|拉升|跳水|成交量|成交额|买入|卖出|增持|减持|仓位|持仓|止损|做多|做空|"
        "估值|目标价|评级|北向资金|资金流入|rally|selloff|sell-off|premarket|after-hours|"
        "bullish|bearish|stop loss|valuation|price target|downgrade|upgrade|overweight|"
        "trading volume|short interest",
        "crypto": "比特币|以太坊|加密货币|虚拟货币|数字货币|稳定币|btc|eth|bitcoin|ethereum|crypto|"
        "cryptocurrency|stablecoin|usdt",
        "commodity": "黄金|金价|原油|油价|大宗商品|期货|铜价|白银|天然气|gold|oil|crude|brent|wti|commodity|"
        "futures|silver|natural gas|opec",
        "fund": "基金|净值|etf|理财|投资|投资者|资产配置|投资组合|券商|证券|私募|公募|fund|portfolio|"
        "investment|investor|asset allocation|hedge fund|brokerage|securities",
        "finance": "金融|金融市场|财经|经济|银行|华尔街|finance|financial|economy|wall street|market|markets|市场",
    },
    "software": {
        "build": "构建|编译|打包|构建失败|构建成功|build|builds|compile|compilation|bundle|webpack|"
        "gradle|maven|makefile",
        "ci": "ci|ci/cd|cicd|流水线|持续集成|pipeline|github actions|workflow|jenkins|gitlab ci|"
        "circleci|travis|buildkite|job|runner",
        "test": "测试|单元测试|集成测试|测试用例|用例|单测|回归测试|端到端|覆盖率|test|tests|unit test|"
        "pytest|jest|test case|test suite|coverage|flaky|e2e|integration test|regression",
        "deploy": "部署|发布|上线|发版|回滚|灰度|版本|预发|staging|deploy|deployment|release|rollout|"
        "rollback|canary|ship|hotfix|tag|helm|argo",
        "code": "代码|提交|合并|分支|代码评审|合并请求|pr|mr|commit|merge|branch|pull request|"
        "merge request|code review|lint|linter|静态检查|依赖|dependency|artifact|制品|镜像|"
        "docker image|repo|repository|仓库",
    },
    "ops": {
        "alert": "告警|报警|警报|预警|监控|值班|p0|p1|p2|sev1|sev2|sev3|alert|alerts|alarm|alerting|"
        "pagerduty|opsgenie|on-call|oncall|paging|monitor|monitoring|grafana|prometheus",
        "outage": "故障|宕机|挂了|不可用|中断|停服|事故|降级|雪崩|outage|downtime|incident|unavailable|"
        "degraded|degradation|unreachable|not responding",
        "error": "报错|错误|错误率|异常|5xx|502|503|504|500错误|超时|崩溃|重启|内存溢出|oom|"
        "exception|error|errors|error rate|timeout|crashloop|crashloopbackoff|panic|segfault|traceback|"
        "out of memory|outofmemory|outofmemoryerror|oomkilled|"
        "stack trace|failure rate",
        "latency": "延迟|响应时间|卡顿|慢查询|耗时飙升|latency|p99|p95|response time|slow query",
        "resource": "cpu|内存|磁盘|负载|使用率|占用率|带宽|连接数|memory|disk|load average|utilization|"
        "saturation|bandwidth|connections|quota",
        "infra": "集群|节点|数据库|服务器|机房|网关|实例|容器|k8s|kubernetes|pod|cluster|server|database|"
        "gateway|instance|container|redis|mysql|postgres|nginx|load balancer|负载均衡|dns|cdn",
        "live": "线上|生产环境|现网|生产|production|prod|live traffic|customer-facing",
        "recovery": "恢复|修复|止血|根因|复盘|缓解|mitigated|mitigation|recovered|resolved|root cause|"
        "postmortem|post-mortem|rca",
        "security": "安全|漏洞|入侵|攻击|证书过期|泄露|security|vulnerability|cve|breach|attack|ddos|"
        "certificate|leak|exploit",
    },
    "research": {
        "paper": "论文|文献|学术|期刊|预印本|arxiv|paper|papers|preprint|journal|publication|citation|"
        "引用|proceedings|neurips|icml|iclr|acl|cvpr",
        "notes": "笔记|读书笔记|阅读笔记|阅读|要点|综述|心得|摘录|notes|reading|takeaway|takeaways|"
        "key points|literature|survey|literature review|reading notes|tl;dr|tldr",
        "study": "研究|实验|调研|对比实验|消融|消融实验|基准|基准测试|数据集|样本|方法论|假设|"
        "research|study|experiment|experiments|ablation|benchmark|dataset|hypothesis|"
        "methodology|findings|evaluation|baseline|sota|state of the art",
        "ml": "模型|训练|微调|大模型|语言模型|神经网络|深度学习|机器学习|推理|注意力|向量|"
        "model|training|fine-tune|fine-tuning|llm|transformer|neural network|deep learning|"
        "machine learning|inference|attention|embedding|rag|retrieval",
        "analysis": "白皮书|竞品分析|技术选型|行业报告|whitepaper|competitive analysis|market research",
    },
    "personal": {
        "schedule": "会议|开会|日程|约会|预约|提醒|待办|截止|截止日期|日历|deadline|meeting|calendar|"
        "appointment|reminder|todo|to-do|schedule|agenda",
        "travel": "航班|机票|酒店|行程|签证|高铁|火车票|flight|hotel|itinerary|trip|travel|visa|boarding",
        "life": "购物|快递|天气|生日|餐厅|菜谱|健身|shopping|package|delivery|weather|birthday|"
        "restaurant|recipe|workout",
    },
    "meta": {
        "number": "数值|数字|数据点|百分比|涨跌幅|number|numbers|figure|figures|numeric|percentage|metric|metrics",
        "time": "时间点|时间|日期|时点|date|time|timestamp|deadline",
        "link": "链接|网址|url|link|links|hyperlink",
    },
}

# Generic message signals (text.signals) stand for these concepts.
SIGNAL_CONCEPTS: dict[str, tuple[str, ...]] = {
    "#num": ("meta.number",),
    "#pct": ("meta.number",),
    "#time": ("meta.time",),
    "#url": ("meta.link",),
    "#ticker": ("finance.stock",),
    "#money": ("meta.number",),
}


def _key(surface: str) -> str:
    """The lookup key of a surface form: CJK as written, English as space-joined stems.

    Phrases keep their stop-words ("on call", "s p 500") so they are matched as n-grams.
    """
    norm = normalize(surface)
    if is_cjk(norm):  # pure or mixed CJK forms ("500错误", "a股") are matched as substrings
        return norm.replace(" ", "")
    words = latin_sequence(norm)
    if len(words) == 1:
        return "" if words[0] in STOP_EN else words[0]
    return " ".join(words)


@lru_cache(maxsize=1)
def concept_index() -> dict[str, tuple[str, ...]]:
    """key -> concepts ("domain.concept"), built once per process."""
    index: dict[str, list[str]] = {}
    for domain, concepts in LEXICON.items():
        for concept, surfaces in concepts.items():
            cid = f"{domain}.{concept}"
            for surface in surfaces.split("|"):
                key = _key(surface)
                if key and cid not in index.setdefault(key, []):
                    index[key].append(cid)
    return {k: tuple(v) for k, v in index.items()}


def concepts_of(key: str) -> tuple[str, ...]:
    return concept_index().get(key, ())


def domain_of(concept: str) -> str:
    return concept.split(".", 1)[0]


def lexicon_key(surface: str) -> str:
    return _key(surface)
