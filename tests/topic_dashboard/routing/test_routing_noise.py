"""Hard filters on content: acknowledgements, greetings, progress reports and tool hints."""

from __future__ import annotations

import pytest

from topic_dashboard.routing.noise import classify_noise, looks_like
from topic_dashboard.routing.text import normalize


def kind(text: str) -> str | None:
    return classify_noise(normalize(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我已经开始处理你的请求", "progress"),
        ("正在搜索…", "progress"),
        ("OK, working on it", "progress"),
        ("好的，我先看一下构建日志。", "progress"),
        ("收到，稍后给你结果。", "progress"),
        ("Step 3/5: downloading the dataset", "progress"),
        ("进度：60%", "progress"),
        ("Let me check the latest CPI numbers.", "progress"),
        ("文件上传成功", "ack"),
        ("report_q3.pdf 上传成功", "ack"),
        ("The file has been saved successfully.", "ack"),
        ("好的", "ack"),
        ("Thanks!", "ack"),
        ("收到你的消息了", "ack"),
        ("Your request has been received and is being processed.", "ack"),
        ("Task completed.", "ack"),
        ("谢谢，辛苦了", "ack"),
        ("Hi there! How can I help you today?", "greeting"),
        ("你好，有什么可以帮你的吗？", "greeting"),
        ("希望对你有帮助！", "greeting"),
        ("需要我继续分析吗？", "greeting"),
        ('web_search("fed rate decision")', "tool_hint"),
        ('read_file("a.md"), web_search("NVDA guidance")', "tool_hint"),
        ("Using tool: web_search", "tool_hint"),
        ('Calling web_search with query "fed"', "tool_hint"),
        ('🔧 exec("git log -5")', "tool_hint"),
        ("tools.read_file (path='notes.md')", "tool_hint"),
        ("已经找到 4 家有空房的酒店，正在比价……", "progress"),
        ("客户健康度评分在跑了，已处理 120/340 个账户…", "progress"),
        ("Still waiting for the portal to load, will retry in a minute.", "progress"),
        ("Still checking the last two invoices...", "progress"),
        # a bare counter of pages, files or rows beside an ongoing marker; where the work stands
        ("合同比对进行中，已处理 12/37 页", "progress"),
        ("正在核对发票，8/20 张", "progress"),
        ("教案写到第三个环节了，还差课堂练习和作业部分。", "progress"),
        ("翻译做到一半，还剩两页", "progress"),
        ("About halfway through the lease comparison.", "progress"),
        # tool calls in other dress
        ('[工具] policy_db.lookup(policy_no="HX-5521")', "tool_hint"),
        ('<工具> parts_catalog.find(model="Brompton C Line")', "tool_hint"),
        ('{"tool": "quote_engine", "args": {"age": 42}}', "tool_hint"),
        ('`inventory.check(sku="SH-CN-HG601")`', "tool_hint"),
        ('Action: catalog_search["Sapiens Harari"]', "tool_hint"),
        ("Calling stripe.refunds.create(charge='ch_3Nx8', amount=12900)", "tool_hint"),
        ("执行 SQL：SELECT sum(amount) FROM refunds WHERE week=20;", "tool_hint"),
        ("调用 顺丰.查询轨迹(运单号='SF1400883021')", "tool_hint"),
        # work still going, said in passing
        ("Grading essays: 11 of 28 finished.", "progress"),
        ("Running the test suite now — 143 of 380 passed so far.", "progress"),
        ("藏品照片还在上传，已传完一半。", "progress"),
        ("Continuing with the rest of the catalog entries.", "progress"),
        ("订单表正在生成中，请稍等～", "progress"),
        ("Grading batch 2 of 5 now, hang tight.", "progress"),
        # the total first, then what is done of it; "I'm reading"; the rest still being worked on, said last
        ("Exporting 212 photos… 90 done.", "progress"),
        ("导出照片中……212 张已完成 90 张。", "progress"),
        ("测试跑着呢，380 个用例已经过了 143 个。", "progress"),
        ("你发的 12 篇论文我在看，现在读到第 5 篇。", "progress"),
        ("三楼和四楼的房态已经排好，五楼还在弄。", "progress"),
        (
            (
                "Working through the renewal batch now: 12 of the 40 policies are checked, but the Harbor ones "
                "take longer because their portal keeps logging me out every few minutes, so it'll be a while "
                "before the rest are through."
            ),
            "progress",
        ),
        ("   ", "empty"),
        ("👍", "empty"),
        # questions back to the user, with nothing else said
        ("生日蛋糕是要6寸还是8寸的？", "question"),
        ("想确认一下：您说的“3号棚”是东区还是西区那个？", "question"),
        ("Which policy did you mean — the home one or the auto one?", "question"),
        ("Is this for Max the beagle or Max the tabby? We have two on file?", "question"),
        ("海报尺寸是A2还是A1？要覆膜吗？", "question"),
        # an acknowledgement that goes on to promise, not to report
        ("好嘞，明天 9 点提醒你给供应商打电话。", "ack"),
        ("收到，已记下：周四之前提醒您联系盒马。", "ack"),
        ("明白，那华信的账单就先不发，等您确认完工时再说。", "ack"),
        ("明白，以后小黑盒的评论不单独发了，合并进日报。", "ack"),
        ("Noted — I won't send renewal alerts for accounts under €5k ARR anymore.", "ack"),
        ("Got it, I'll remind you on Friday.", "progress"),  # "I'll ..." was progress already
        ("这笔 1200 元从哪个账户转，工资卡还是储蓄卡？", "question"),
    ],
)
def test_noise_kinds(text: str, expected: str) -> None:
    assert kind(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "部署成功",
        # a name with a place in brackets is a sentence, not a tool call
        "João (Graça) would like to renew for another two years if the rent can stay the same.",
        "Priya (Alfama T1) asked whether her brother can stay with her for three weeks in August.",
        # trailing off is progress only while something is still going
        "Build #12 passed: 120/124 tests…",
        "Quarterly meeting notes are ready...",
        "The invoice is still unpaid...",
        "构建成功：main@3f2a1c，用时 4m12s",
        "准备金率下调 25bp",  # starts like 准备 (preparing) but is a rate decision
        "来自 Grafana 的告警：订单服务 5xx 错误率 12%",
        "P1 故障处理中，预计 30 分钟恢复",
        "我来总结一下：BTC 今日下跌 5%，跌破 6 万美元",
        "Sure! Here is the summary: revenue up 12%.",
        "Build #123 failed: 3 tests failing. I'm looking into it now.",
        "Hi team, the nightly build failed on arm64.",
        "报销进度：5 月差旅报销已审批通过，预计 3 个工作日到账。",
        "Starting today, the API rate limit is 100 req/min.",
        "Starting on Monday, deploys need two approvals.",
        "Looking ahead, we expect CPI to cool to 3.1% in Q3.",
        "构建完成：main 通过",
        "已完成 37 份合同的比对，发现 3 处差异",
        "Invoice 12/2026 sent to the client; 3 items are still unpaid.",
        "第 3 季度报告已发布，阅读量 1,284。",
        # partial counts and -ing words in finished results
        "王总的个税汇算已经提交。",
        "May reconciliation done: 12 of 14 flats paid in full. Still outstanding: Daguan 302.",
        # a result with a question after it, or a question after a report in the same sentence
        "Q3 revenue is ¥1.2M, up 8%. Want me to send it to finance?",
        "已订好鼎泰丰晚上 7 点 4 人桌，要提醒你吗？",
        "米娅两岁体检约在周二下午 4:15，要我前一天晚上提醒你吗？",
        "Invoice #12 is overdue by 30 days — should I send a reminder?",
        "Invoice #12 is overdue by 30 days, should I send a reminder?",
        "鼎泰丰 7 点和 8 点半都有位，订哪个？",  # an answer with a choice: kept for the model to judge
        # a promise or a plan without an acknowledgement before it may be the news itself
        "以后每周一早上 8 点自动发周报，第一期下周一。",
        "From now on, deploys need two approvals.",
        "收到，已记下：订单 2413 已发货，顺丰 SF1400883021。",
        "Culling done: kept 64 of 480 shots, mostly the ceremony and golden-hour portraits.",
        "Consent forms for the museum trip: 38 of 43 signed and returned. Still missing: Su Wen.",
        "Booking confirmed for 3/8 at 19:00, table for four.",
        "Deploy of v1.9.1 triggered a spike of 5xx errors (35%) in production; rolling back now.",
        # an incident report whose last clause says who is on it now
        "P1 工单 #48213：深圳锐拓智能反馈看板页面全部白屏，影响 200 多个用户，已升级到二线，研发正在排查。",
        "Photo export finished: 212 of 212 done, 3 skipped as duplicates.",
        "导出完成：212 张全部导出，90 张已上传相册。",
    ],
)
def test_one_substantive_sentence_is_enough(text: str) -> None:
    assert kind(text) is None


def test_loose_progress_check_behind_exclude_rules() -> None:
    long_progress = "正在汇总今天所有与金融无关的数据同步任务，预计还需要十分钟，完成后会把每个任务的耗时、失败原因和重试次数整理成表格发给你"
    norm = normalize(long_progress)
    assert looks_like("progress", norm, classify_noise(norm))
    assert not looks_like("progress", normalize("美联储降息 25bp"), None)
    assert not looks_like("duplicate", norm, None)  # dedupe is the publish path's job
