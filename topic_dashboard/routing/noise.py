"""Hard filters: messages that are only an acknowledgement, a greeting, a progress report or a
tool hint are never published, whatever the topic rules say.

A message is noise when *every* sentence of it is one of those kinds; one substantive
sentence ("Build #12 failed: 3 tests") is enough to let it through to routing.
"""

from __future__ import annotations

import re

from topic_dashboard.routing.text import normalize

_SENTENCE_SPLIT = re.compile(r"[。！？!?\n;；]+|…+|\.{3,}|(?<!\d)[:：](?!\d)|\.(?=\s|$)|—+")
_LEADING_FILLER = re.compile(
    r"^(?:(?:好的|好滴|好嘞|好|收到|明白了?|了解了?|嗯+|ok(?:ay)?|sure|alright|got it|noted|"
    r"(?:hi|hello|hey)(?: there| all| everyone| team| folks)?|"
    r"你好|您好|嗨|哈喽|没问题|当然|稍等|sure thing|no problem|great|perfect|thanks?|thank you|谢谢)"
    r"[\s,，、~～!！.]*)+"
)
_TRIM = re.compile(r"^[\s\W_]+|[\s\W_]+$")
# One to three characters over and over, spaces aside: "xxxx…" (a walkthrough's 3,000 x's went to the inbox),
# "ababab", "000000". A repeated laugh ("哈哈哈") stays a greeting.
_REPEATED = re.compile(r"^(.{1,3}?)\1{3,}$")  # on text without spaces or line breaks
_SPACES = re.compile(r"\s+")

_TOOL_CALL = re.compile(r"^(?:[a-z_][\w\-]*|[a-z_][\w\-]*[._][\w.\-]+\s?)\(.*\)$")
_TOOL_LEAD = re.compile(
    r"^(?:(?:using|calling|invoking|running|executing) (?:the )?(?:tool|function|command|mcp)s?\b|"
    r"(?:tool|function|mcp)(?: ?call| ?use)?\s*[:：]|tool_call\b|"
    r"(?:正在)?(?:调用|使用|执行)(?:了)?(?:工具|函数|命令|mcp)|工具调用|"
    r"read\s+\S+$|exec\s*[:(]|\$\s+\S+|\[(?:tool|function|mcp|function_call|tool_call|工具|调用|函数)\]|"
    r"<(?:tool|function|工具|调用)>|>\s*tool\s*:|tool_use\s*:|tool call\b|action\s*:\s*[a-z_][\w.]*\s*\[|"
    r"(?:executing|running)\s+sql\b|执行\s*sql|"
    r"(?:calling|invoking|using|running|executing)\s+`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+`?(?:\s|$)|"
    r"(?:calling|invoking|using|running|executing|调用|执行|读取|运行|查询)\s*\S{0,12}?\s*`?[a-z_][\w\-]*(?:\.[\w\u4e00-\u9fff]+)*\(|"
    r"(?:调用|执行|运行)\s*[\u4e00-\u9fff]{1,8}\.[\u4e00-\u9fff\w]+\(|"
    # a call in more words: "Calling 苗木价格库 API → query(…)", "调用 B站 投稿接口 upload(…)"
    r"(?:calling|invoking|调用|执行)\s.{0,30}?[a-z_][\w]*\(|"
    # a code block, a bare SQL statement, an HTTP request, a ReAct step
    r"```|(?:select\s.+?\sfrom|insert\s+into|update\s+\S+\s+set|delete\s+from)\s|"
    r"(?:get|post|put|patch|delete)\s+(?:https?://|/)\S|(?:action|thought|思考|行动)\s*[:：]|"
    # looking something up, said as it starts: "查一下顺丰冷链能不能到乌鲁木齐…", "用 memoQ 服务器查一下…",
    # "通过 Z39.50 协议检索…", "调用学信网学历认证接口…", "查审批状态："
    r"(?:我|让我|我来|我去|先|再)?(?:查一下|查下|查查|翻一下|翻翻|搜一下|搜搜|扒一下|检索一下)|"
    r"用\s*.{1,20}?(?:查|搜|检索|翻)一下|(?:在|去|到)\s*.{1,20}?(?:查|扒|搜|翻|检索).{0,40}\.{3,}$|"
    r"(?:正在)?(?:调用|请求|访问|通过)\s*.{0,40}?(?:接口|api|协议|后台|服务器|数据库)"
    r"(?!.{0,40}(?:失败|成功|完成|报错|返回了|结果|failed|succeeded))|"
    r"(?:查|查询|检索|搜索|调取)\S{0,12}[:：]$|"
    # somewhere to look ("我去 Meraki 后台看一下", "让我在售票系统里看一眼", "我先用运维后台查一下"), a chain of
    # clicks or a call with its parameters ("打开 Opera PMS → 房态图", "计算个税 ▸ 工资=18500", "检索 PubMed：关键词「…」"),
    # a command line ("lark-cli msg send --chat …", "执行：gedcom-merge a.ged b.ged"), an agent framework's trace
    r"(?:我|让我|我来|我去|我先|先|再)?(?:先|再)?(?:去|用|在|到)\s*[^，,。]{1,24}?(?:查|搜|检索|翻|看|算|跑)"
    r"(?:一下|一眼|一遍|下|搜|看)(?![^，,。]{0,6}(?:了|过))|"
    # a tool named in the other language, about to run: "先 query 一下 CRM 里的老客户", "先跑一下 invoice
    # generator：…", "用 Google Calendar API 建个 event"
    r"(?:我|让我|我来)?(?:先|再)?\s*(?:query|search|grep|run|跑|call|check|load|ping|hit)\s*一下\s*\S|"
    r"用\s*[^，,。]{1,24}?\bapi\s*(?:建|创建|新建|发|查|拉|写|加|生成)(?!\S{0,2}(?:过|了))|"
    # somewhere to pull from, a sheet to filter, a formula about to run (session 34): "先去 Xero 里拉一下付款记录",
    # "我去共享表格里用筛选功能把欠租的会员挑出来", "用 Power BI 刷新一下 dataset", "我用 `=SUMIF(…)` 把工时加一下"
    r"(?:我|让我|我来)?(?:先|再|现在)?(?:去|用|在|到)\s*[^，,。]{1,40}?(?:拉|导出?|筛|挑|数|加|刷新|生成|汇总|做|画|转|\b[a-z]{3,})\s*"
    # a resultative complement before what it got says the work is done ("做出来的排班表", "数下来一共 43 箱",
    # "汇总下来，Q1 …"), unless more work follows ("导出来的数据对一下", "拉下来算回撤")
    r"(?:一下|下(?!来(?:的|[,:。]|\s*(?:一共|共|总共|合计))(?![^，,。]{0,20}?(?:一下|再|看看)))"
    r"|出来(?![的了](?![^，,。]{0,20}?(?:一下|再|看看))))(?![^，,。]{0,6}(?:了|过))|"
    r".{0,30}?(?:用|打开)\s*[^，,。]{0,30}?`?=[a-z]{2,}\([^`]{0,80}`?\s*[^，,。]{0,24}?"
    r"(?:算|筛|加|数|统计|汇总|查|挑)\s*(?:一下|下|出来)|"
    r"^打开(?!率)\s*[a-z][^，,。]{0,30}?(?:准备|先|来)|"
    r"^(?:让我|我来|我去|我先)\s*(?:quickly\s*|快速)?(?:(?:check|query|查|翻|拉|算|数|核)\s*一下|看一下\s*[a-z][^，,。]{0,20}?里)|"
    r"(?:先|我先|让我)(?:去|在|到)\s*[^，,。]{1,24}?(?:系统|后台|表格|表|平台|app|小程序|里)[^，,。]{0,10}?"
    r"(?:导出|拉|下载|筛|查)(?![^，,。]{0,6}(?:了|过))|"
    r"(?:先|我先|让我|我)?用\s*[^，,。]{0,30}?(?:\b(?:vlookup|xlookup|query|sumifs?|countifs?|filter|pivot)\b|函数|公式|透视表|"
    r"宏|脚本|script|formula)[^，,。]{0,30}?(?:一下|下|对上|对到|算出|分出|匹配|合并|标出)(?![^，,。]{0,6}(?:了|过))|"
    r"(?:我)?(?:先|再|现在)?(?:调(?![研查整度])|开(?![会发通]))(?:一下|用)?\s*[^，,。]{0,40}?(?:\bapi\b|接口|endpoint|\bdb\b|数据库|\b[a-z_]+\.[a-z_]+\b)"
    r"(?![^。]{0,40}(?:返回|失败|成功|结果|了))|"
    # an API or a REST call to be made with it: "我先用 WooCommerce REST API `GET …` 看看线上库存", "用 WhatsApp Business
    # API 给 3 个 group leaders 发一下天气提醒", "现在用 DeepL API 把图录的描述翻成中文"
    r"(?:我)?(?:先|再|现在)?用\s*[^，,。]{0,30}?\bapi\b[^，,。:：]{0,60}?(?:看看|查|拉|发|算|翻|把|给)(?![^，,。]{0,30}?(?:(?<!为)了|过(?!去)))|"
    r"^我(?:先)?(?:看一下|查一下)\s*[a-z]|(?:我)?(?:先|再)?\s*call\s+[^，,。]{1,30}?\bapi\b|跑个\s*(?:vlookup|xlookup|query|sql|脚本|script|公式)|"
    r".{0,60}[:：]\s*=[a-z]{2,}\([^)]*\)\s*$|"
    r"pulling\b[^.;:]{0,60}\bfrom [a-z][\w-]*(?: [a-z][\w-]*)?(?: now)?\s*(?:to|so i can)\b|"
    r"(?:调用|执行|calling)\s*[^。]{0,40}?\b[a-z_]+\s*=\s*\S(?!.*(?:返回|失败|成功|结果|returned|failed))|"
    r"checking [^.;:]{1,60}? in [a-z][\w-]*\W{0,2}$|"
    # a command line; a cloud CLI by its service and operation and a runtime by its script, since prose opens
    # with those words too ("AWS spend rose 14% …", "AWS S3 costs are up 20%", "Python 3.13 migration finished"
    # were read as commands until session 41)
    r"(?:ffmpeg|gsutil|rclone|pandoc|magick|yt-dlp)\s+(?:-|[a-z]+\s|gs://|s3://|\S+\.\w+)|"
    r"aws\s+(?:configure|--)|aws\s+[a-z0-9]+\s+(?:[a-z]+(?:-[a-z0-9]+)+|ls|cp|sync|mv|rm|mb|rb|presign)(?:\s|$)|"
    r"az\s+login\b|az\s+[a-z]+\s+(?:[a-z-]+\s+)?(?:list|show|create|delete|update|start|stop|set|get-credentials)(?:\s|$)|"
    r"gcloud\s+(?:[a-z-]+\s+){1,3}(?:list|describe|create|delete|deploy|set|update|get-credentials|ssh|login)(?:\s|$)|"
    r"(?:python3?|node|deno|bun)\s+(?:-[a-z]|\S+\.(?:py|js|mjs|cjs|ts)\b)|"
    # an API or a back office about to be asked: "Let me query the TempSense API for …", "Checking the Met Office API
    # for frost warnings tonight", "Opening the Shopify admin to pull this week's orders", "Let me pull this week's
    # bookings from the crematorium scheduler", "Let me look up this patient's history in EMIS"
    r"(?:(?:let me|i'?ll|i will|i'?m going to|going to)\s+(?:quickly\s+)?(?:check|query|hit|call|ping|poll|use|look up|pull)"
    r"|checking|querying|calling|pinging|polling)\b[^.;:]{0,60}?\b(?:api|endpoint|webhook)\b"
    r"(?!.{0,60}(?:returned|says|shows|failed|succeeded|is down|was down))|"
    r"(?:i'?m\s+)?(?:opening|logging into|signing into)\s+(?!hours|times|day|night|date|ceremony)(?:the\s+)?[^.;:]{1,40}?\bto "
    r"(?:pull|check|export|grab|download|see|look|update|find|send|load|resize|make|create|edit|design|tag|post|schedule|book)\b|"
    r"let me (?:pull|grab|export|download|fetch|look up|search|open|log into)\b[^.;:]{0,80}?\b(?:from|in|on|into) (?:the |our )?"
    r"[a-z]|"
    r"(?:调用|执行|检索|拉取|打开|计算|查询|搜索)\s*[^，,。]{0,30}?(?:→|▸|｜|\|)|"
    r"(?:调用|执行|检索|搜索|查询)\s*[^，,。:：]{0,30}?[:：]\s*[^。]{0,60}?(?:=|「|关键词|参数|条件)|"
    r"(?:执行|运行)\s*[:：]\s*[a-z]|[a-z][\w-]*(?:-cli|ctl)\s+[a-z]|[a-z][\w.-]+\s+(?:[a-z][\w.-]*\s+){0,3}--[a-z][\w-]*|"
    r">\s*entering new \w+ chain|【(?:工具|调用|函数)】|googling\b|"
    r"using (?:the )?[^,.]{1,30}? (?:tool|api|cli|plugin|integration) to (?:look up|check|find|search|pull|fetch|query|tag|send|"
    r"post|create|update|add|email|message|schedule|book)\b|"
    # a slash command, a tool tag with attributes, a spreadsheet formula, a GraphQL query, a shell command
    r"/[a-z\u4e00-\u9fff][\w\u4e00-\u9fff\-]*(?:\s|$)|<(?:tool|function|function_call|tool_call|invoke|工具|调用)[\s>=]|"
    r"(?:call|cmd|command|fn)\s*[:：]\s*\S|=[a-z]{2,}\(|(?:query|mutation)\s*\w*\s*[({]|"
    r"(?:(?:ssh|curl|wget|rsync|scp)\s+\S|(?:psql|mysql|redis-cli)\s+-|kubectl\s+[a-z]|"
    r"systemctl\s+(?:start|stop|restart|status|reload|enable)\b|docker\s+(?:run|exec|compose|ps|logs)\b|"
    r"(?:git|npm|pip|pnpm|yarn)\s+(?:push|pull|clone|install|run|checkout|fetch)\b)"
    r"(?!.{0,60}(?:succeeded|failed|done|built|pushed|deployed|完成|成功|失败)))"
)
_TOOL_JSON = re.compile(
    r'^\{\s*"(?:tool|function|name|tool_name|action|fn|method|call|cmd|command|plugin|api|工具|函数|动作)"\s*:'
)
_TOOL_EMOJI = frozenset("🔧🛠⚙🔍🔎📎🧰💻▶→")

_PROGRESS_LEAD = re.compile(
    r"^(?:我们?)?(?:已经|已|现在|正|先|马上|这就|立即|立刻|将|会|继续|还在|仍在)*"
    r"(?:正在|开始|着手|尝试|准备(?!金))"
    # ("我已写信给物业投诉…", "我已帮你确认…": "已" says it is done, but not "我已经在查…", "我已经去查…"; "我已经开始…"
    # is the line above)
    r"|^我们?(?!(?:已经|已)(?!\S{0,3}?(?:在|去|来)))(?:(?:已经|已|现在|正|先|马上|这就|立即|立刻|将|会|继续|再)+(?:来|去|帮你|为你|给你|帮您|为您|给您)?|"
    r"(?:来|去|帮你|为你|给你|帮您|为您|给您))"
    r"\S{0,4}?(?:处理|搜索|查|找|分析|整理|看|生成|下载|读取|获取|拉取|运行|执行|计算|检查|准备|汇总|总结|写|"
    r"翻译|跑|抓取|确认|核实|对比|研究)(?![了过完好出]|掉了|到(?!底))"  # "我去药房查了一下，…还有 12 盒", "查到了", "整理出", "处理掉了" are done
    r"|^(?:i'?ve|i have|we'?ve|we have)\s+(?:just\s+|already\s+)?(?:started|begun|kicked off)\b"
    r"|^(?:i'?m|i am|we'?re|we are)?\s*(?:(?:now|currently|still|just|already)\s+)*"
    r"(?:starting|started|working|looking|checking|searching|fetching|running|analy[sz]ing|processing|"
    r"reviewing|reading|gathering|collecting|compiling|preparing|downloading|uploading|generating|"
    r"pulling|querying|scanning|investigating|digging|trying|writing|drafting|thinking|loading|waiting|"
    r"crawling|browsing|calculating|computing|retrieving|going to|about to|on it)\b"
    r"(?! (?:(?:ahead|forward|back|today|tomorrow|tonight|point|total|theory|list)\b|"
    r"(?:on|at|in|from|next|this) (?:now|today|tomorrow|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|"
    r"jul|aug|sep|oct|nov|dec|q[1-4]|\d|next|this|the (?:first|next|\d))))"
)
_PROGRESS_ANY = re.compile(
    r"^(?:处理中|进行中|请稍候|请稍等|稍等|等一下)|稍后(?:给你|回复|发送|同步|通知)|马上(?:给你|回复|处理)|"
    r"(?:下载|上传|加载|搜索|分析|生成|处理|执行)中\W*$|"
    r"^(?:let me|i'?ll|i will|give me a|one moment|just a moment|hang on|hold on|please wait|"
    r"bear with me|stand by|working on it|still working|still on it|in progress)\b|"
    r"^(?:让我|我去|我来)(?:看看|翻翻|找找|查查|对一下|核对)|^(?:马上好|马上就好|快好了)|"
    r"^(?:让我|我去|我来|我先)(?:打开|登录|登进|翻|查|搜|算|调)|"
    r"^(?:进度|progress|step|步骤|第\s*\d+\s*步)\s*[:：]?\s*\d+|"
    r"^\[?[=#>\-\s]*\]?\s*\d{1,3}\s*%$|已完成\s*\d{1,3}\s*%|\d{1,3}\s*%\s*(?:done|complete)"
)
_ACK = re.compile(
    r"^(?:好的?|好滴|好嘞|收到|明白了?|了解了?|知道了|没问题|可以|行|嗯+|ok(?:ay)?|k|sure|got it|noted|"
    r"roger(?: that)?|understood|will do|no problem|np|done|all set|all done|cool|great|perfect|"
    r"sounds good|yes|yep|yeah|of course|certainly|absolutely|thanks?(?: you)?(?: so much)?|thank you|"
    r"谢谢(?:你|您)?|感谢|不客气|没事|辛苦(?:了|啦)?|完成|已完成|搞定|搞定了|done for now|"
    r"(?:已)?收到(?:你|您)?的?(?:请求|消息|文件|任务)?(?:了|啦)?|request received|"
    r"(?:i'?ve|i have) (?:received|got) your (?:request|message|file)s?|hmm+|um+|uh+|是的|对的?|"
    r"sure thing|will do|can do|i can do that|here you go|here it is|see below|如下|以下是|"
    r"(?:任务|处理|操作|执行|工作|请求)(?:已|已经)?(?:完成|结束)(?:了|啦)?|"
    r"(?:the )?(?:task|job|request|work|all)(?: is| has been)? (?:complete|completed|done|finished)|"
    r"(?:your )?(?:request|message|task)s? (?:has been |have been |was |is )?(?:received|accepted|queued)"
    r"(?: and (?:is|are) being processed)?)$"
    # a file name or a generic object before the verb ("report.pdf 上传成功", "文件保存完成"); a named
    # thing with where it went ("营业执照年报已经在公示系统提交完成") is a result, not an acknowledgement
    r"|^(?:[\x21-\x7e]{1,20}\s*|(?:文件|图片|照片|附件|消息|数据|内容|资料|表格|文档|它|这个|那个|都)\s*)?"
    r"(?:已|已经)?(?:上传|保存|下载|发送|提交|接收|删除|复制|写入|导入|导出|创建|更新|"
    r"重命名|移动)(?:成功|完成|好了|完毕)(?:了)?$"
    r"|^(?:已|已经)(?:上传|保存|下载|发送|提交|收到|创建|更新|写入)(?:了)?\s*\S{0,20}$"
    r"|^(?:文件|图片|照片|附件|消息|数据|内容|请求|任务|资料|表格|文档|它|这个|那个|都)?(?:已|已经)(?:上传|保存|下载|发送|提交|收到|创建|更新|写入|删除)(?:了)?(?:成功|完成|好了|完毕)?$"
    r"|^(?:the )?(?:\S+ )?(?:file|image|document|attachment|upload|data|changes?)s? "
    r"(?:(?:has|have) been |was |were |is )?(?:uploaded|saved|sent|received|downloaded|deleted|"
    r"written|created|updated|complete|completed|successful|succeeded)(?: successfully)?$"
    r"|^(?:saved|uploaded|sent|received|created|updated)(?: successfully)?(?: \S+){0,3}$"
)
_GREETING = re.compile(
    r"^(?:你好|您好|嗨|哈喽|hi|hello|hey|早上好|上午好|中午好|下午好|晚上好|早安|晚安|"
    r"good (?:morning|afternoon|evening|night)|greetings)(?![a-z]).{0,16}$"
    r"|有什么(?:我)?(?:可以|能)帮(?:你|您|忙)|还有(?:什么|其他|别的)(?:需要|问题|要)|随时(?:告诉|找|联系)我|"
    r"希望(?:这|以上|这些)?(?:对你|对您|能)?有(?:所)?帮助|很高兴(?:为你|为您|帮你|帮您|见到)|祝你|"
    r"^(?:需要我|要不要我|是否需要|要我|你想|您想|你希望|您希望|还需要)|"
    r"let me know if|anything else|how can i (?:help|assist)|hope (?:this|that) helps|"
    r"^(?:great|good|interesting) question|"
    r"feel free to|happy to help|glad to help|(?:nice|good|great) to (?:meet|see|hear from) you|"
    r"^(?:would you like|do you want|shall i|should i|want me to)\b|"
    r"^(?:哈哈+|呵呵+|嘿嘿+|lol|haha+|😂|👍|🙏|😊)+$"
)

KINDS = ("tool_hint", "progress", "question", "greeting", "ack")
# The patterns' verdicts a fitted model may overrule when it reads a finished result (engine.evidence), and
# which: the stream model (trained on work still going and tool calls against results) the bot's own work,
# the noise model (conversation against results) acknowledgements, greetings and questions back; a question
# back only by what comes before it (offer_lead, engine.overrule_texts).
OVERRULED_BY = {"progress": "stream", "tool_hint": "stream", "ack": "noise", "greeting": "noise", "question": "noise"}

# What each kind is, in the words topic_route's reason and topic_publish's refusal use.
NOISE_REASONS = {
    "empty": "content is empty (no words: only spaces, symbols or one character repeated)",
    "tool_hint": "content is a tool hint (a tool call, not a result)",
    "progress": "content is only a progress report",
    "ack": "content is only an acknowledgement",
    "greeting": "content is only a greeting or small talk",
    "question": "content only asks the user something back (answer it in the chat)",
}

# What an acknowledgement goes on to promise, going forward or later, rather than report: "好嘞，明天 9 点
# 提醒你给供应商打电话", "明白，那华信的账单就先不发，等您确认完工时再说", "Noted — I won't send renewal
# alerts under €5k anymore". Noise only after an acknowledgement: alone, "以后每周一发周报" may be news.
_COMMITMENT = re.compile(
    r"^(?:已|已经)?(?:记下|记住|记好|记上)(?:了|啦)?$"
    r"|^.{0,16}?(?:提醒|叫)(?:你|您)"
    r"|^(?:那|那么)?(?:以后|之后|今后|往后|下次|从现在起|从今天起)"
    r"|^(?:那|那么)?\S{0,12}?先不\S{0,12}(?:等|再说|了)"
    r"|^(?:i'?ll|i will|we'?ll|we will) (?:remind|ping|nudge|let you know|keep|stop|skip|hold|leave)\b"
    r"|^(?:i|we) won'?t\b|^(?:from now on|going forward|in future|in the future|next time)\b"
)
_ACK_FIRST = re.compile(
    r"^(?:好的?|好滴|好嘞|收到|明白了?|了解了?|知道了|没问题|ok(?:ay)?|sure|got it|noted|understood|will do|roger)(?![a-z])"
)
# A message made only of questions (and other noise) asks the user something back ("生日蛋糕是要6寸还是
# 8寸的？", "Which policy did you mean — the home one or the auto one?"): it belongs in the chat, where the
# user can answer. A question is read clause by clause: every clause before the last one asks too ("这笔
# 1200 元从哪个账户转，工资卡还是储蓄卡？") or only leads in ("想确认一下"). A clause that states something
# ("已订好鼎泰丰晚上 7 点 4 人桌，要提醒你吗？", "Invoice #12 is overdue — should I send a reminder?") makes it
# a result with an offer after it, and one statement anywhere in the message lets it through.
_ASKS = re.compile(
    r"哪|什么|是否|要不要|还是|吗|呢|多少|几|怎么|如何|请问|谁"
    r"|^(?:which|what|who|whom|where|when|why|how|did|do|does|is|are|was|were|should|shall|can|could|would"
    r"|will|have|has|any|or)\b"
)
_QUESTION_LEAD = re.compile(
    r"^(?:想|我想|再)?(?:确认一下|确认下|问一下|问下)|^请问$|^(?:quick question|just to confirm|to confirm|"
    r"to clarify|just checking|one question|one more thing|before i (?:start|go on|continue|book|send))$"
)


def _asks_back(sentence: str) -> bool:
    """A sentence that ends in a question mark and only asks (see _ASKS)."""
    *before, _last = re.split(r"[，,]", sentence)
    return all(_ASKS.search(c.strip()) or _QUESTION_LEAD.match(_TRIM.sub("", c)) for c in before if c.strip())


# A message still under way says so with a counter and an ongoing marker together, wherever they
# stand: "正在做情感分析（3/5）", "Step 2/4 done: ... Checking payment status next",
# "Uploading build to Steam depot… 63%", "对账进度：9 月已完成，10 月处理中". Either alone is not
# enough: "120/124 tests passed (96.8%)" is a result.
_COUNTER = re.compile(
    r"(?:step|步骤|第)\s*\d+\s*(?:/|of|步)\s*\d*|[（(]\s*\d+\s*/\s*\d+\s*\S{0,2}[)）]|^(?:\S{0,12})?进度\s*[:：]"
    r"|(?:…|\.{3})\s*\d{1,3}(?:\.\d)?\s*%|\d{1,3}\s*%\s*(?:…|\.{3})"
    r"|已?(?:处理|完成|做|批|改|看|扫描|比对|发|传|导|录|打|拍)了?\s*\d+\s*/\s*\d+|\d+\s*/\s*[\d,]+\s*(?:页|个|份|条|项|张|篇|封)"
    r"|\b\d+ (?:of|/) \d+ (?:[a-z]+ )?(?:done|processed|checked|scanned|reviewed)\b"
)
_ONGOING = re.compile(
    r"[:：]\s*[a-z]+ing\b|正在|处理中|进行中|还在|稍后|接下来|\bnext\b|\bnow [a-z]{3,}ing\b"
    r"|(?:回复|发送|群发|重发|上传|回访|导入|录入)中"
    r"|\b\w+ing\b[^.!?。！？]{0,40}(?:…|\.{3})|(?:…|\.{3})\s*\d{1,3}(?:\.\d)?\s*%"
)


# A short message that trails off ("……", "...") while something is still going ("正在比价……",
# "评分在跑了，已处理 120/340 个账户…", "still waiting for the portal, will retry...").
_TRAILING = re.compile(r"(?:…+|\.{3,})\s*\W{0,3}$")
_UNDER_WAY = re.compile(
    r"正在|在跑|还在|仍在|处理中|进行中|加载中|\b(?:still|currently) \w+ing\b|\bwill retry\b|\bretrying\b"
    r"|\b(?:is|are|am|i'm|we're|it's)\s+(?:still\s+|now\s+)?\w+ing\b"
)
# Where the work stands, in plain words: "教案写到第三个环节了，还差课堂练习和作业部分",
# "翻译做到一半，还剩两页", "about halfway through the draft, two sections to go".
_HALF_DONE = re.compile(
    r"(?:写|做|改|批|整理|看|读|翻译|处理|跑|进行|录入|核对|排)到.{0,12}[，,][^，,。]{0,8}还(?:差|剩|有|缺).{0,20}(?:没|未)?"
    r"|^(?:\S+ )?(?:about |roughly |nearly )?halfway (?:there|through|done)\b"
)
# Work still going, said in passing: an ongoing marker with a partial count, a share done, a wait or
# "the rest" ("Grading essays: 11 of 28 finished", "合同审了一半", "藏品照片还在上传，已传完一半",
# "Continuing with the rest of the catalog entries", "订单表正在生成中，请稍等～").
_GOING = re.compile(
    r"正在|进行中|(?<![个人位家户])还在|仍在|跑着呢|在跑|[\u4e00-\u9fff]中[……～~]*$|[\u4e00-\u9fff]中(?=[，,])|(?<![付交退赔垫])了一半|^继续"
    r"|[我你他她]们?在(?:看|读|查|改|做|写|弄|排|整理|处理|核对|翻译|审|算|录|修|剪|导出|上传|下载)"
    r"|^(?:(?:i'?m|we'?re|i am|we are)\s+)?(?:(?:still|now|currently|just)\s+)?"
    # an -ing word that is no verb at work ("Spring showcase registration closed: 47 of 60 filled")
    r"(?!(?:spring|morning|evening|king|ring|things?|nothing|something|anything|everything|ceiling|wedding|clothing|"
    r"bedding|pudding|sibling|string|swing|wing|during)\b)[a-z]+ing\b|^continuing\b|\bin progress\b"
    r"|\bunder ?way\b"
)
_FINISHED = re.compile(
    r"\b(?:done|complete|completed|finished|won|approved|closed)\b|完成|结果|完毕"
    # "Q3 report: …" is a result; "Processing the lab results…" is work on them
    r"|^(?!(?:(?:i'?m|we'?re|still|now|currently)\s+)*[a-z]+ing (?:the|a|an|our|your|my|his|her|their|all|\d))"
    r".*\b(?:results?|report|summary)\b"
)
_GOING_ANYWHERE = re.compile(r"\bhang tight\b|\bi'?m on (?:number|page|item|step|#)|\bthis may take\b|\bnot done yet\b")
_PART_DONE = re.compile(
    r"一半|三分之一|halfway|a third\b|\bthe rest\b|剩下|还剩|还要\s*\S{0,4}\s*(?:分钟|小时)|几分钟|稍等|稍候|\bso far\b"
    r"|第\s*\d+\s*[页篇条个份]|做到|读到|审到|改了\s*\d+|已(?:传|做|改|看|审)完?\s*(?:一半|\d+)|[…]+$|\.{3}$|～$"
    r"|\bstill (?:polishing|working)|\bnow[.…!]*$|\bin progress\b|\bafter that\b|逐个|一条条|一个个"
    # what is left, said after the count done: "3 riders done, 6 left", "112 boxes checked, ~80 to go",
    # "weekday rates in, weekend rates still to add", "hull done, machinery section next", ", carrying on."
    # ("84 boxes left (of 200)" alone is stock: "left" only after a count done)
    r"|~?\b\d+\s+(?:[a-z]+\s+){0,2}(?:to go|remaining|pending)\b|\bstill to [a-z]+\b|\b[a-z]+ next\W*$"
    r"|\b\d+\s+(?:[a-z]+\s+){0,2}(?:done|checked|sent|confirmed|finished|placed|reviewed|booked|messaged|called)"
    r"\b[^.;]{0,30}?\b\d+\s+(?:[a-z]+\s+){0,2}left\b"
    r"|\bcarrying on\W*$|[,;]\s*\d+\s+(?:[a-z]+\s+){0,2}(?:left|to go|remaining)\W*$|\b\d+\s+still (?:in|on|to)\b"
    r"|还有\s*[\\d一二两三四五六七八九十]+\s*\S{0,3}(?:在|没|未|待)"
    # a part done and the last part still going, said last: "A 区已经同步完，B 区进行中。"
    r"|[,，]\s*[^,，。;；]{1,12}?(?:进行中|处理中|还没(?:好|完))\W*$"
)
_UNIT = r"\s*(?:pods?|pages?|files?|items?|steps?|rows?|records?|photos?|个|页|篇|张|份|条|封|步)"


# The total first, then what is done of it: "Exporting 212 photos… 90 done", "导出照片中……212 张已完成 90 张",
# "380 个用例已经过了 143 个".
_TOTAL_THEN_DONE = re.compile(
    r"(?<!\d)(?<!\d\.)(\d+)(?:\s*[a-z]+)?\D{0,24}?(?<!\d)(?<!\d\.)(\d+)\s*(?:done|finished|processed|checked|exported|uploaded)\b"
    r"|(?<!\d)(?<!\d\.)(\d+)\s*[个张页篇份条项封件本户间家位人集章台]\S{0,8}?(?:已经?|中|里)\S{0,4}?\s*(?<!\d)(?<!\d\.)(\d+)\s*"
    r"[个张页篇份条项封件本户间家位人集章台]"
    r"|(?<!\d)(?<!\d\.)(\d+)\s*/\s*(\d+)\s+[a-z]+\s+(?:reviewed|done|processed|checked|parsed|decoded|placed|sent|"
    r"uploaded|imported|exported|written|scanned|tagged|assigned|resized|translated|matched|entered)\b"
)


def _partial_counter(norm: str) -> bool:
    """ "143 of 380", "3/8 pods", "212 张已完成 90 张": a count not yet at its total ("124/124", or a
    date "3/8", is not)."""
    pairs = [
        (m.group(1) or m.group(3), m.group(2) or m.group(4))
        for m in re.finditer(rf"\b(\d+) of (?:the |all )?(\d+)\b|(?<![\d.])(\d+)\s*/\s*(\d+)(?={_UNIT})", norm)
    ]
    for m in _TOTAL_THEN_DONE.finditer(norm):
        if m.group(5):  # "3/7 maps reviewed": what is done first
            pairs.append((m.group(5), m.group(6)))
        else:
            pairs.append((m.group(2) or m.group(4), m.group(1) or m.group(3)))
    return any(int(done) < int(total) for done, total in pairs)


# The thing first, then the bot at it, and what is left of it: "报名表在审，看了 6 份，还剩 4 份",
# "摊位费在对账，已收到 19 家，还差 7 家". Only with what is left: "合同在谈" alone may be someone else's news.
_SUBJECT_AT_WORK = re.compile(
    r"^(?![^，,。]*(?:说|表示|反馈|那边))[^，,。：:]{1,40}?(?<![现存正实所还我你他她们])在"
    r"(?:审|寄|看|比价|谈|拉|对账|确认|盯|办|迁移|换|准备|填|盘|下单|配|数|查|催|挑|贴|称|校对|补|跑|核|排(?!查)|写|做"
    r"|算|改|录|整理|处理|更新|弄|拆|逐个|一个个)(?![^，,。]{0,4}?(?:后|完|好))"
)
_LEFT_TO_DO = re.compile(r"还(?:剩|差|没)|剩下|剩\s*\d|待定|还有\s*\d+\s*\S{0,2}(?:没|未|待|要)|还在等")


def _still_going(norm: str) -> bool:
    """Work still going, said in passing: an ongoing marker in the first clause and something
    not yet done ("Grading essays: 11 of 28 finished", "藏品照片还在上传，已传完一半",
    "Continuing with the rest of the catalog entries", "订单表正在生成中，请稍等～")."""
    if len(norm) > 240:
        return False
    if _GOING_ANYWHERE.search(norm):
        return True
    first = re.split(r"[.;:!?。；：！？\n—…]", norm, maxsplit=1)[0][:60]
    if _SUBJECT_AT_WORK.search(first) and (_LEFT_TO_DO.search(norm) or _partial_counter(norm)):
        return not _REPORTED.search(norm) and not _WORK_OVER.search(norm)
    if not _GOING.search(first) or _FINISHED.search(first):
        return False
    if _GERUND_SUBJECT.match(first):
        return _gerund_still_going(norm)
    return _partial_counter(norm) or bool(_PART_DONE.search(norm))


# An -ing word that names the work as the subject of a verb saying it is over is a statement about it, not
# work going on ("Checking in for your flight is done, seat 14C", "Collecting the $2,400 from the Parkers took
# three reminders, but it's in", "Listing went live on Zillow at $489k", "Working hours for Dana are set"): the
# verb in the same clause, not inside a clause of its own ("Checking the servers after the deploy went out"),
# and a finished state right after it ("Processing is at 40%", "Uploading was paused at 45%", "Rebalancing the
# portfolio is 50% done" and "Uploading is in progress" are work going on). A count short of its total or a word
# of work still going ("so far", "still", "… next") still makes it work going on (a review's leaks).
_GERUND_SUBJECT = re.compile(
    r"^[a-z]+ing\b(?:(?!\b(?:if|whether|that|which|who|what|when|where|why|how|and|or|after|before|since|because|until|"
    r"once|while|as|i|we|you|they|he|she|it)\b)(?:[^,.;:!?—…\n]|(?<=\d)[,.](?=\d))){0,60}?"
    r"\b(?:(?:is|are|was|were)\s+(?:now\s+|all\s+)?(?:done|set|confirmed|booked|paid|signed|sorted|approved|scheduled|"
    r"ready|finished|completed?|over|fine|live|in(?!\s+(?:progress|process|(?:the\s+)?queue|review))|closed|fixed|"
    r"resolved|cancell?ed)\b"
    r"|went\s+(?:live|fine|well|through|smoothly|out)\b|came\s+(?:back|to|in)\b"
    r"|took\s+(?:\d|a few\b|several\b|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b))"
)


# What still says work is going after such a subject: "Reconciling the statements took 2 hours so far", "Checking the
# invoices is done for January, February next", "… the rest is still loading" ("the rest" alone is not: "Booking for
# the Lisbon trip is set: …; the rest of the itinerary is in your calendar"). A few of `_PART_DONE`'s words, not all
# of it: "the rest" and "a third" ("Landscaping quote came back at $3,800, about a third of what we budgeted") say
# nothing of work after a finished state.
_GERUND_GOING_ON = re.compile(r"\bso far\b|\bin progress\b|\bstill\b|\bhalfway\b|\b[a-z]+ next\W*$|…$|\.{3}$")


def _gerund_still_going(norm: str) -> bool:
    return _partial_counter(norm) or bool(_GERUND_GOING_ON.search(norm))


_STILL_WAITING = re.compile(r"^(?:still )?waiting (?:for|on)\b.{0,80}\bwill (?:retry|try again|check again)\b")


# Signs of work still going that no finished result carries, anywhere in a message: a progress bar
# part filled ("▓▓▓░░ 38%"), a status tag leading it ("[进度]", "【状态】", "[status]"), an hourglass,
# the first part of an output shown while the rest is made ("生成中，前半部分如下"), a place in a
# queue, a retry under way, the time still to wait ("大概还要 4 分钟", "about 5 more minutes"), the
# bot's own work going on ("渲染中", "术语表还在补", "still aligning the Spanish one"), the next part
# being started ("现在做第二批", "working on Day 4"), or the rest promised ("等会儿发你", "剩下的继续").
_WORK_GOING = re.compile(
    r"[▓█■▰][▓█■▰]*[░▒□▱]|^[\[【(（]\s*(?:进度|状态|status|progress|wip)\s*[\]】)）]|^(?:⏳|⌛|🔄)"
    r"|(?:前半部分|前半段|第一部分|上半部分)如下|\bfirst (?:part|half|section)s?\b.{0,12}\bbelow\b"
    r"|排队中|队列\S{0,6}?排(?:在)?第\s*\d|queue position|position \d+ in (?:the )?queue"
    r"|\bretrying\b|\bretry \d+\s*/\s*\d+|[（(]attempt \d+(?: of \d+|\s*/\s*\d+)?[)）]|重试中|正在重试|第\s*\d+\s*次重试"
    r"|(?:预计|大概|估计|大约)?还(?:要|需要?)\s*\S{0,3}\s*(?:分钟|min)|\b\d+ more minutes?\b|大概还有\s*\d+\s*分钟"
    r"|(?:生成|汇总|渲染|拉取|盘点|清点|登记|统计|导入|导出|同步|计算|核对|录入|上传|下载|加载|编译|转换|打包|整理|解析|排版"
    r"|剪辑|收集|编目|迁移|扫描|比对|匹配|校对|collecting|parsing|syncing|loading)\s?中(?![心国文间级断])"
    r"|(?:现在|正在|接下来|然后)(?:在)?(?:做|发|导|排|处理|同步|弄|整理|核对|算|剪|写|录)\S{0,3}?第?\S{0,2}?"
    r"(?:批|部分|轮|集|章|步)"
    r"|\b(?:working on|now on|moving on to|starting on|now doing) (?:the )?(?:next|other|second|third|last|remaining|"
    r"rest|day \d+|part \d+|step \d+|batch \d+|section \d+)\b|\bworking through [a-z]\W"
    r"|(?:等会儿?|待会儿?|稍后|晚点|一会儿?)(?:(?:发|给|同步|回复)(?:你|您)|再?发(?:你|您|完整版|全部|最终版))|(?:弄完|做完|搞完)就|剩下的继续|继续往[下后](?:看|翻|查|做|弄|整理|核对)"
    r"|[,，;—]\s*continuing\.?$|\bcontinuing with the rest\b|(?:完成|跑|做|看|审)到?一半"
    r"|^(?:还在|在|正在|仍在)?等(?:待)?(?![你您])\S{0,20}?(?:回复|回消息|回传|回签|确认|返回|反馈|报价|结果)"
    r"|^(?:\S+\s)?(?:still |currently )?waiting (?:for|on) (?!you\b|your\b)"
    # the next part, said after what is done: "接下来导研究生的", "第二步在查出险记录", "下一步对比三家供应商的价格"
    r"|接下来(?:我)?(?:再)?(?:导|处理|做|弄|同步|发|整理|核对|对比|算|排|写|查)"
    r"|下一步(?:我)?(?:会|再|就)?(?:把|对比|核对|整理|发|做|处理|查|算|排)"
    r"|到第\s*\d+\s*\S{0,2}了?[,，]\s*(?:一共|共|总共)\s*\d+|第\s*\d+\s*步\s*[(（]\s*共\s*\d+\s*步"
    r"|剩下\s*\S{0,4}\s*继续|^(?:马上好|马上就好|快好了)|[,;]\s*(?:now )?working on\b|\b[a-z]{3,}ing \d+ of \d+\b"
    # the bot looking something up now and promising word later: "Checking the typhoon track… will update
    # in 10 min", "Checking with Dr. Huang before I confirm the referral — will get back to you"
    r"|^(?:(?:i'?m|we'?re)\s+)?(?:still\s+)?(?:checking|looking (?:into|up|at)|verifying|confirming|asking|calling|"
    r"pulling|fetching|searching|going through|reviewing)\b.{0,160}\b(?:will|i'?ll|i will|we'?ll)\s+(?:update|"
    r"report back|get back|circle back|let you know|follow up|ping you|message you)\b"
    # the bot at work, said first: "在给下周排班，周一到周三排完了", "在核对押金退款，退了 4 个",
    # "周测卷在批，数学批完 18 份", "发票在开，已开 3 家诊所", "催款邮件文案在写：标题定了"
    r"|^我?还?在给[^，,。]{1,20}?(?:排|办|建|做|写|整理|更新|算|开|录|拍|打电话|发)"
    r"|^我?还?在(?:批|排(?!查)|核对|写|做|整理|处理|更新|拍|算|弄|改|录|翻|逐个|回访|挨个|生成)"
    r"|^(?![^，,。]*(?:说|表示|反馈|那边))[^，,。：:]{1,24}?(?<![现存正实所还])在(?:写|开|更新|批|做|算|排(?!查)|整理|核对|处理|弄|改|录|拍|上传|生成|剪)"
    r"(?:了|着)?\s*[，,：:]"
    # the steps still ahead, in order: "212 employees loaded, tax tables next, then the bank export"
    r"|[,;]\s*[a-z][a-z0-9 ]{2,30} next,? then (?:the )?[a-z]"
    # session 34. Waiting on someone before the bot can go on: "还在等 Sarah 确认字体，确认后我再下单", "我还在等李药师
    # 确认", "等 insurer 回复 premium，收到我再告诉你", "回了我就 update 你"
    r"|^(?:我)?(?:还在|正在|仍在|在)等(?![你您候])|我(?:还|正|也)?在等(?![你您候])"
    r"|[：:，,]\s*(?:还在|正在|仍在|在)等(?![你您候])[^。]{0,40}?(?:后|了)\s*(?:我)?(?:再|才能|就)"
    r"|^等(?![你您])[^。]{0,60}?[，,]?\s*我(?:才能|就能|再|就|马上)|还在等[^。]{0,40}?(?:之后|后|了)\s*我(?:再|才能|就)"
    r"|结果出来(?:了)?(?:我)?再(?:告诉|通知|跟|发)|[0-9一二三四五十]+\s*分钟后(?:自动)?(?:再试|重试)|正在重新|正在重发"
    r"|我(?:写|做|翻译|录|整理|核对|审|改)到第\s*\S{1,3}\s*(?:个|篇|页|条|份|张|章|段)"
    r"|进行中\s*[:：，,][^。]{0,40}?还(?:有|剩|差)\s*\d+|[（(]还剩\s*\d+\s*(?:条|个|份|张|篇|页|封|笔|单|户|位)[)）]"
    r"|大概\S{0,3}(?:半小时|\d+\s*分钟|\d+\s*小时)后(?:给|发)(?:你|您)"
    r"|^next,? i'?ll\b[^.]{0,100}\bthen\b|[,;—]\s*now on (?:the|a|an|my|our)\b|^almost done [a-z]+ing\b"
    r"|[,，]\s*\S{0,3}\s*[a-z0-9]*\s*(?:区|批|部分|组|层|楼)[^，,。]{0,24}?(?:正在|还在)"
    # code-switched, English verb and Chinese aspect: "exporting 中", "retry 中", "drafting 中"; a run going
    r"|\b[a-z]+ing\s*中(?![心国文间级断])|\b(?:retry|update|upload|sync|export|import|draft)\s*中(?![心国文间级断])"
    r"|(?:在|正在)\s*retry|retry\s*第|\b(?:running|going|under ?way)\s*(?:[:：]|…|\.{3})|\battempt \d+ running\b"
    r"|^trying\b[^.]{0,40}\bagain\b"
    r"|(?:下一步|接下来)\s*[:：]?\s*(?:我)?先|(?:下午|明天|晚上|待会儿?|稍后)继续"
    r"|每\s*\d+\s*分钟(?:重发|重试|刷新|\s*refresh|再试|检查|看)"
    r"|\bevery (?:hour|\d+ minutes)\b.{0,80}\bi'?ll\b|\bso far\b.{0,120}\bmore to go\b"
    r"|\bonce (?:he|she|they|it) (?:answers|replies|confirms|sends|gets back)\b[^.]{0,20}\bi'?ll\b"
    r"|[，,]\s*等[^。，,]{0,20}?(?:回复|确认|回|发过来|给)(?:了|后|之后)?\s*我(?:再|就|才能)"
    r"|(?:发|做|写|打|录|核)到第\s*\d+\s*\S{0,2}了?[,，]\s*还有\s*\d+"
    r"|已(?:登记|录入|核对|点|拍|扫描|整理|定位)\s*\d+\s*\S{0,2}[,，]\s*还(?:剩|有|差)"
    r"|还在跟[^，,。]{1,16}?(?:确认|核对|对|谈|沟通)[^。]{0,40}?(?:了|后)[^。，,]{0,6}?我(?:才能|再|就|马上)"
    # a retry under way: "第二次重试发送确认邮件中", "第二次尝试向 Nexora 发报告" (not one that ended)
    r"|第\s*[二三四五六七八九2-9]\s*次(?:尝试|重试)(?![^。]{0,30}(?:成功(?!后)|失败|终于|还是|都))"
    r"|^re-?(?:sending|uploading|submitting|trying|running|exporting|importing)\b(?![^.]{0,60}(?:failed|done|succeeded|worked))"
    # the bot at it now: "我正在换个地址重发", "我现在还在跟三个教会核对日期", "现在写到南瓜组", "第4轮时间冲突，我在调"
    r"|我(?:正在|还在|正|在)(?:换|重发|重新|调(?![查研度])|改|核对|跟\S{1,12}?(?:核对|确认|对)|联系|回访|整理|清理|对(?:账|一下)|排(?!查))"
    r"|现在(?:还)?(?:在|正在)(?:跟\S{1,12}?)?(?:核对|清理|整理|处理|弄|核|写|做|排(?!查)|改|录|调|翻|联系|回访)"
    r"|(?:现在|目前)(?:写|翻译|核对|录)到|现在先把[^。]{1,30}?(?:算|做|整理|弄|核|对|排|写)(?:完|好)"
    r"|目前只(?:做|写|核|整理|排|看|录|翻译)完了|现在刚(?:拉|做|整理|核|算|对|写|录)完"
    r"|(?:跑|做|打|写|查|导|传)到[^，,。]{0,20}?\d+\s*/\s*\d+|到第\s*\d+\s*\S{0,2}\s*[（(]\s*共\s*\d+"
    r"|[，,]\s*进度\s*[:：]?\s*\d+\s*/\s*\d+\W*$"
    r"|还剩[^，,。]{0,12}没(?:点|做|看|审|录|核|排|整理|处理|改)"
    # done, then word to the owner: "发完跟你汇报", "弄完告诉你"; the rest carried on: "剩下 26 户晚上接着发"
    r"|(?:发完|做完|弄完|搞完|弄好|整理完|核完|跑完|对完|排完)(?:了)?(?:我)?(?:再|就)?(?:告诉|跟|给|向|通知|发)(?:你|您)"
    r"|剩下[^。，,]{0,16}?(?:接着|继续)"
    r"|(?:我)?接下来(?:我)?(?:会|要|先)(?:再)?(?:联系|整理|处理|做|发|核对|对|算|排|写|查|update)"
    # English: the next piece begun, what is left, a wait with the bot's next step
    r"|[,;—]\s*(?:now\s+)?starting on\b|(?:^|[,;—]\s*)now (?:doing|running|working on|picking|writing|drafting|checking|"
    r"sorting) (?:the|a|an|my|our)\b|\bworking through the (?:remaining|rest)\b|\bso far\b[^.]{0,20}\b\d+ left\b"
    r"|\b\d+ of \d+\b[^.]{0,60}\bcarrying on\W*$|^still (?:chasing|watching|monitoring|waiting|trying)\b"
    r"|\bonce i'?ve (?:compared|checked|finished|done|gone through|heard|got|collected|sorted)\b"
    r"|^[a-z]+ing\b[^.]{0,120}\bstill need(?:s)?\b|\bhalf (?:written|done|finished|drafted)\b"
    r"|\bstill to (?:write|do|add|draft|finish|check|fix|send|book)\s*[:：]|\bdraft so far\b"
    r"|^[a-z]+ing\b[^.;]{0,60}\bnow\s*[;—-]\s*i'?ll\b"
    r"|\bin,\s*~?\d+\s*(?:more\s+)?(?:to go|left)\b|^next(?: step| up)?\s*[:：]\s*(?:先|first\b|i'?ll\b|我|把|检查|核对|整理)"
    r"|^(?:i'?m|we'?re) (?:going to|about to) (?:ring|call|contact|email|message|check|go through|compare)\b[^.]{0,100}"
    r"\b(?:then|one by one)\b"
)
# Work still being done, said of someone: the bot's own unless the message reports what someone else
# said ("干洗店说亮片裙要特殊处理，还在做", "the print shop says the banners are still printing"); also
# a part done and the rest still being worked on, said last ("三楼和四楼的房态已经排好，五楼还在弄。").
_STILL_DOING = re.compile(
    r"还在(?:补|写|确认|调|弄|做|排(?!查)|改|整理|核对|赶|算|对|录|剪|生成|加载|汇总|统计|拉|校对|挑|配|清理|回访|填|核|跑|同步|上传|下载|导)"
    # "still on it", "but I'm still aligning the Spanish one" (not "the contractor is still working")
    r"|(?:^|[,;:—]\s*|\b(?:i'?m|i am|we'?re|we are)\s+)still (?:aligning|pricing|checking|working|writing|drafting|"
    r"compiling|processing|running|rendering|uploading|downloading|syncing|importing|exporting|generating|calculating|"
    r"matching|sorting|parsing|collecting|gathering|pulling|building|polishing|editing|translating|scanning|counting|"
    r"picking|choosing|deciding|chasing|doing|on it)\b"
    r"|(?:第\s*[一二三四五六七八九十\d]+\s*\S{0,3}|[,，]\s*)(?:在|正在)(?:剪|做|写|排(?!查)|改|录|弄|查|译|审|描|对|算|盘|数|拍|整理|核)"
)
_REPORTED = re.compile(
    r"[\u4e00-\u9fff](?:说|表示|反馈|称|告知)|[\u4e00-\u9fff]那边|对方|\b(?:says?|said|according to|told (?:us|me))\b"
    # a reply quoted (session 35): "卫生局回复：油烟排放复查他们还在排期，…我们这边啥也不用做"
    r"|[\u4e00-\u9fff]回复\s*[:：]"
    # an outside party still at it (session 34): "百乐的经销商还在核对我们的年度返利"
    r"|(?:经销商|供应商|银行|房东|物业|厂家|工厂|快递|总部|税务局|法院|医院|保险公司|平台|政府|海关)(?:那边)?(?:还在|正在|仍在)"
)
# ...unless it is over: a run that ended ("failed after 3 attempts", "gave up") or reached its total.
_WORK_OVER = re.compile(
    r"failed after|gave up|stopped retrying|放弃|停止重试|已经?全部|全部完成|all done|\b100\s*%|(?<!\d)(\d+)\s*/\s*\1(?!\d)"
    # the bot already told the person concerned: "在业扩队列排第 9，预计 7 月中旬接电，已短信通知他"
    r"|已(?:短信|电话|邮件|微信)?(?:通知|告知|转告)(?:了)?(?:他|她|客户|家长|对方|本人)"
)
# An attempt that ended is a result: "尝试续费 3 次都被银行拒了，没再试".
_ENDED = re.compile(r"失败|被拒|拒了|没再试|放弃|没成功|\bfailed\b|\bgave up\b|\bdeclined\b|\brejected\b")


# A checklist part ticked under a header that says it is not over ("月底对账进行中：☑ Square 流水 ☐ 现金收款",
# "待办进度：☑ 联系加油卡公司 ☐ 确认维修厂时间"); a fully ticked one, or one under a header of a finished check
# ("Inspection done: ☑ … ☐ …"), is a result.
_TICKED = re.compile(r"[☑✅✓✔]|\[x\]")
_UNTICKED = re.compile(r"[☐□⬜]|\[ \]")
_CHECK_OVER = re.compile(r"完成|结果|报告|验收|done|complete|finished|passed|failed|report|inspection|result")


def _part_ticked(norm: str) -> bool:
    first = _TICKED.search(norm)
    first_open = _UNTICKED.search(norm)
    if not first or not first_open:
        return False
    header = norm[: min(first.start(), first_open.start())]
    return not _CHECK_OVER.search(header)


# A count of what is done out of a total, in Chinese, short of it: "48 张里做完 31 张了", "4 台中 2 台好了",
# "312 个 SKU 里已更新 140 个", "填了 5 页中的 3 页" (at its total, "48 张里做完 48 张", it is over). Group 1 is
# the total, group 2 what is done.
_ZH_UNIT = "[张份个条篇页户台件]"
_ZH_DONE = "(?:做|写|改|翻|看|审|核|录|发|打)"
_OF_TOTAL_ZH = tuple(
    re.compile(pattern)
    for pattern in (
        (
            rf"(\d+)\s*{_ZH_UNIT}\s*[a-z]{{0,6}}\s*(?:里|中的|中)\s*(?:已经?)?"
            rf"(?:更新|生成|导出|导入|录入|核对|上传|处理|发|做|拍|核)了?\s*(\d+)"
        ),
        rf"(\d+)\s*{_ZH_UNIT}\s*(?:里|中)\s*(?:已经?)?{_ZH_DONE}?(?:完|好)了?\s*(\d+)",
        rf"(\d+)\s*{_ZH_UNIT}中的\s*(\d+)\s*{_ZH_UNIT}",
        rf"(\d+)\s*{_ZH_UNIT}\s*(?:里|中)\s*(\d+)\s*{_ZH_UNIT}\s*{_ZH_DONE}?(?:完|好)了",
    )
)


def _short_of_total_zh(norm: str) -> bool:
    return any(int(m[2]) < int(m[1]) for pattern in _OF_TOTAL_ZH for m in pattern.finditer(norm))


def _under_way(norm: str) -> bool:
    if len(norm) > 240:
        return False
    if _part_ticked(norm):
        return True
    going = (
        _WORK_GOING.search(norm)
        or _short_of_total_zh(norm)
        or (_STILL_DOING.search(norm) and not _REPORTED.search(norm))
    )
    if going and not _WORK_OVER.search(norm):
        return True
    if _STILL_WAITING.search(norm):
        return True
    if len(norm) <= 80 and _HALF_DONE.search(norm):
        return True
    if _still_going(norm):
        return True
    if not _TRAILING.search(norm):
        return False
    last = _sentences(norm)[-1:] or [norm]
    return bool(_UNDER_WAY.search(last[0]))


def _sentences(norm: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(norm) if s and s.strip()]


def _sentences_asking(norm: str) -> list[tuple[str, bool]]:
    """Each sentence, and whether it asks (a question mark ends it). Pieces joined by dashes that end in
    a question mark are one question ("which policy did you mean — the home one or the auto one?")."""
    pieces: list[tuple[str, str]] = []
    start = 0
    for match in _SENTENCE_SPLIT.finditer(norm):
        pieces.append((norm[start : match.start()].strip(), match.group()))
        start = match.end()
    pieces.append((norm[start:].strip(), ""))
    parts: list[tuple[str, bool]] = []
    run: list[str] = []
    for sentence, delimiter in pieces:
        run.append(sentence)
        if delimiter and not delimiter.strip("—"):
            continue  # a dash: the run goes on
        if "?" in delimiter or "？" in delimiter:
            parts.append(("，".join(piece for piece in run if piece), True))
        else:
            parts.extend((piece, False) for piece in run)
        run = []
    return [(sentence, asked) for sentence, asked in parts if sentence]


# A finished result followed by an offer or a question back ("Received $3,200 from Henderson. Want me to send
# a receipt?", "已收到王总的尾款¥28000。需要我开发票吗？"): what comes before the last asking sentence, or in a
# one-sentence message before its last asking clause, is what the noise model is asked about (offer_lead).
_SENTENCE_END = re.compile(r"(?<=[。！？!?])\s*|(?<=\.)\s+|\s*\n+\s*")
_CLAUSE_END = re.compile(r"[，；;]\s*|,(?!\d)\s*|\s+[—–-]+\s*|—+")  # not the comma of "$2,000"
_ASKED_END = re.compile(r"[?？]\s*$")
OFFER_LEAD_MIN_CHARS = 8


def offer_lead(content: str) -> str | None:
    """The part of a message ending in a question that comes before what it asks: the sentences before its
    trailing asking ones, or, when it is one sentence, the clauses before its last; None when the message
    does not end in a question, nothing of substance (OFFER_LEAD_MIN_CHARS) comes first, or a clause of what
    comes first asks too ("王总的尾款已经到账了吗，还是还没到？", "Were the payslips emailed, or only six?": the
    question itself, not a result before it; so is a statement the question words misread: "多少涨了一点")."""
    text = content.strip()
    if not _ASKED_END.search(text):
        return None
    sentences = [piece for piece in _SENTENCE_END.split(text) if piece.strip()]
    while sentences and _ASKED_END.search(sentences[-1]):
        last = sentences.pop()
    if not sentences:  # one asking sentence: its clauses before the last
        cuts = list(_CLAUSE_END.finditer(last))
        sentences = [last[: cuts[-1].start()]] if cuts else []
    clauses = [_TRIM.sub("", c) for piece in sentences for c in _CLAUSE_END.split(normalize(piece))]
    if any(_ASKS.search(c) or _QUESTION_LEAD.match(c) for c in clauses if c):
        return None
    lead = " ".join(piece.strip() for piece in sentences).strip()
    return lead if len(_TRIM.sub("", lead)) >= OFFER_LEAD_MIN_CHARS else None


# A finished result after a lead-in that names the work ("Checking the bank feed, the Henderson payment of
# $3,200 cleared this morning.", "Digging into the March statement, I found a duplicate $89 charge"): the
# patterns read the lead-in as work going on; what follows it is what the stream model is asked about once
# more (progress_rest). Not after a lead-in that trails off ("Uploading to Libsyn… retrying, the connection
# dropped") or tries again ("Retrying the payment, …"), not after a word in -ing that is no verb ("Morning,
# …"), and not when what follows is work to the patterns or says what is left or failed ("…, 5 to go",
# "…, the card was declined the first time").
_WORK_LEAD_IN = re.compile(
    r"^\s*(?!(?:Retry|Re-|Morning|Evening|Nothing|Something|Everything|Anything|During|Spring|Wedding|Ceiling)"
    # nor after a lead-in that moves a batch of things, whose rest tells one of them done ("Downloading the
    # statements, the January one is done.": a second review found these released)
    r"|(?:Download|Upload|Send|Export|Import|Sync|Copy|Copie|Migrat|Transferr|Back|Print|Post|Email|Install|Process"
    r"|Sort|Tagg|Renam|Mov|Convert|Generat|Batch|Go|Work)ing\b(?! with\b))"
    r"[A-Z][a-z]+ing\b[^,.;:!?…—–\n]{0,60},\s+(.+)$",
    re.DOTALL,
)
_WORK_LEFT = re.compile(
    r"\b(?:to go|left|remaining|so far|still|next|then|attempt|again|first time|pending|waiting|in progress|once)\b"
    r"|\b(?:fail|declin|bounc|retr|time[sd]? out|timing out)\w*",
    re.IGNORECASE,
)
PROGRESS_REST_MIN_CHARS = 12


def progress_rest(content: str) -> str | None:
    """What follows an English lead-in clause that opens with a verb in -ing ("Running the numbers, …"), when
    the patterns see no work or tool call in it and it says nothing is left or failed; None otherwise."""
    match = _WORK_LEAD_IN.match(content)
    if match is None:
        return None
    rest = match.group(1).strip()
    if len(rest) < PROGRESS_REST_MIN_CHARS or _WORK_LEFT.search(rest) or classify_noise(normalize(rest)) is not None:
        return None
    return rest


def _substance(sentence: str) -> str:
    return _TRIM.sub("", _LEADING_FILLER.sub("", sentence))


def _is_tool_hint(norm: str) -> bool:
    if not norm or len(norm) > 400:
        return False
    if norm[0] in _TOOL_EMOJI or _TOOL_JSON.match(norm):
        return True
    if norm.startswith("```"):
        return True  # a code block first: the command the bot runs
    norm = norm.strip("`").strip()
    # "get_weather(city='paris'), search(q=...)": the split takes every ")" but the last one's.
    # "joão (graça) would like to renew..." is a sentence: a call's name has no space before "(".
    parts = [p.strip() for p in re.split(r"\),\s*", norm)]
    if all(_TOOL_CALL.match(p if i == len(parts) - 1 else p + ")") for i, p in enumerate(parts)):
        return True
    return bool(_TOOL_LEAD.match(norm))


# "3/8 步" leading a sentence: a count short of its total ("9/9 个…已核完" is a result)
_LEAD_COUNT = re.compile(r"^(\d+)\s*/\s*(\d+)\s*(?:步|steps?|files?|个)")


def _lead_count_short(core: str) -> bool:
    match = _LEAD_COUNT.match(core)
    return match is not None and int(match[1]) < int(match[2])


_HEADER = re.compile(r"^.{0,10}(?:进度|进展|状态|progress|status|update)$")


# A status read from somewhere else ends the sentence: "状态显示“编辑处理中”", "系统里状态还是“处理中”" (session 41:
# a blind batch's resubmitted paper was taken for the bot's own work by "处理中" at the end). Shown by a system
# or quoted; not one the bot sets ("正在把订单状态改为已发货") or its own task's ("备份状态还是处理中").
_STATUS_SHOWN = re.compile(
    r"状态\s*(?:仍?显示(?:为)?\s*[“\"'「『]?|(?:为|是|仍是|还是|仍为)\s*[“\"'「『])[^，。,;；“”\"'「」『』]{1,10}[”\"'」』]?\W*$"
)
_SETS_STATUS = re.compile(r"(?:正在|在把|把|我在|我正在|我们正在).{0,20}状态")


def _sentence_kind(sentence: str) -> str | None:
    """The noise kind of one sentence, or None when it says something."""
    core = _substance(sentence)
    # "数据同步任务进度：" or "想确认一下：" only introduces what follows
    if not core or _HEADER.match(core) or _QUESTION_LEAD.match(core):
        return "filler"
    if _is_tool_hint(core):
        return "tool_hint"
    short = len(core) <= 80
    if (
        short
        and (_PROGRESS_LEAD.match(core) or _PROGRESS_ANY.search(core) or _lead_count_short(core))
        and not _ENDED.search(core)
        and not (_GERUND_SUBJECT.match(core) and not _gerund_still_going(core))
        and not (_STATUS_SHOWN.search(core) and not _SETS_STATUS.search(core))
    ):
        return "progress"
    whole = _TRIM.sub("", sentence)  # "收到你的消息了" is an ack as a whole, not after "收到"
    if any(len(t) <= 60 and _ACK.match(t) for t in (core, whole)):
        return "ack"
    if any(len(t) <= 60 and _GREETING.search(t) for t in (core, whole)):
        return "greeting"
    return None


def classify_noise(norm: str) -> str | None:
    """Return the noise kind of a whole normalised message, or None if it is substantive.

    Kinds: "empty", "tool_hint", "progress", "ack", "greeting".
    """
    trimmed = _TRIM.sub("", norm)
    if not trimmed:
        return "empty"
    if _REPEATED.match(_SPACES.sub("", trimmed)) and not _GREETING.search(trimmed):
        return "empty"
    if _is_tool_hint(norm):
        return "tool_hint"
    if len(norm) <= 200 and _COUNTER.search(norm) and _ONGOING.search(norm) and not _REPORTED.search(norm):
        return "progress"
    if _under_way(norm):
        return "progress"
    kinds: set[str] = set()
    acked = bool(_ACK_FIRST.match(norm))
    for sentence, asked in _sentences_asking(norm):
        kind = _sentence_kind(sentence)
        if kind is None and asked and len(norm) <= 200 and _asks_back(sentence):
            kind = "question"
        elif kind is None and acked and _COMMITMENT.search(_substance(sentence)):
            kind = "ack"
        if kind is None:
            return None
        kinds.add(kind)
    for kind in KINDS:
        if kind in kinds:
            return kind
    return "ack"


# Titles that only label what follows: they add nothing to noise under them.
_BARE_TITLE = re.compile(
    r"^(?:questions?|tool(?: ?call| ?use| ?hint)?|note|message|reply|answer|response|info|update|status|progress|"
    r"chat|hi|hello|hey|thanks?|thank you|ok|回复|问题|提问|消息|通知|工具|工具调用|进度|状态|更新|你好|谢谢)$"
)


def classify_item(title_norm: str, content_norm: str) -> str | None:
    """The noise kind of a titled item (what topic_publish stores), or None: its content is noise and
    its title adds nothing (noise itself, or a bare label such as "Question"). A headline that says
    something ("Release 2.4 shipped") lets a terse content ("Done.") through."""
    kind = classify_noise(content_norm)
    if kind is None:
        return None
    title = _TRIM.sub("", title_norm)
    if not title or _BARE_TITLE.match(title) or classify_noise(title_norm) is not None:
        return kind
    return kind if classify_noise(f"{title_norm}\n{content_norm}") is not None else None


def looks_like(kind: str, norm: str, noise_kind: str | None) -> bool:
    """Loose detectors behind rule texts such as "纯寒暄" or "与金融无关的任务进度".

    Unlike `classify_noise`, a progress lead is enough even in a longer message.
    "duplicate" is never detectable from one message (dedupe lives in the publish path).
    """
    if kind == "progress":
        first = _sentences(norm)[:1]
        return noise_kind == "progress" or bool(
            first and (_PROGRESS_LEAD.match(_substance(first[0])) or _PROGRESS_ANY.search(first[0]))
        )
    if kind == "greeting":
        return noise_kind in ("greeting", "ack") or (len(norm) <= 12 and not re.search(r"\d", norm))
    if kind == "ack":
        return noise_kind == "ack"
    if kind == "tool_hint":
        return noise_kind == "tool_hint"
    return False
