"""The personal family of rule templates: a personal assistant's trips, health, home, family and learning.

Written for someone whose bot books and tracks things for them and their family and reports back; each
subject comes three ways like the others (rule_templates.py explains how, and how the wording meets the
router).
"""

from __future__ import annotations

from typing import Any

PERSONAL_TEMPLATE_KEYS = ("travel", "health", "home", "family", "learning")

PERSONAL_TEMPLATES: dict[str, dict[str, Any]] = {
    "travel": {
        "label": "Travel",
        "name": "Travel",
        "description": "Flights, trains, hotels, visas and itineraries for my trips",
        "view_types": ["card", "timeline", "table", "markdown"],
        "routing": {
            "purpose": "My own trips: flights, trains, hotels, visas and itineraries, and every change to them. "
            "我自己的出行：机票、火车、酒店、签证和行程，以及它们的变动。",
            "include_when": [
                "a flight, a train ticket or a hotel booking confirmed",
                "a flight cancelled, a train rescheduled, a hotel booking changed",
                "online check-in open, seat assigned, boarding gate, flight delayed",
                "a visa, passport or entry requirement for my trip",
                "a finished itinerary or trip plan",
                "airline miles and hotel points",
                "机票、高铁票或酒店预订成功",
                "航班取消、火车改签、酒店退订",
                "航班延误、值机、登机口或座位",
                "签证、护照、入境要求",
            ],
            "exclude_when": ["parcels delivered to my home", "my daily commute to work", "寄到家里的快递"],
            "examples": {
                "positive": [
                    "Flight confirmed: BA 168 London to Beijing, Fri 12 Apr, dep 16:05, seat 23A, e-ticket sent",
                    "G1234 上海虹桥→北京南 改签到明天 8:00，二等座 05 车 12F",
                    "Hotel in Kyoto booked for 3 nights from 3 May, free cancellation until 30 Apr",
                ],
                "negative": ["Want me to look for cheaper flights?", "Searching for hotels in Kyoto…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "travel_en": {
        "label": "Travel (English)",
        "name": "Travel",
        "description": "Flights, trains, hotels, visas and itineraries for my trips",
        "view_types": ["card", "timeline", "table", "markdown"],
        "routing": {
            "purpose": "My own trips: flights, trains, hotels, visas and itineraries, and every change to them.",
            "include_when": [
                "a flight, a train ticket or a hotel booking confirmed",
                "a flight cancelled, a train rescheduled, a hotel booking changed",
                "online check-in open, seat assigned, boarding gate, flight delayed",
                "a visa, passport or entry requirement for my trip",
                "a finished itinerary or trip plan",
                "airline miles and hotel points",
            ],
            "exclude_when": ["parcels delivered to my home", "my daily commute to work"],
            "examples": {
                "positive": [
                    "Flight confirmed: BA 168 London to Beijing, Fri 12 Apr, dep 16:05, seat 23A, e-ticket sent",
                    "Train G1234 Shanghai to Beijing moved to 8:00 tomorrow, car 5 seat 12F",
                    "Hotel in Kyoto booked for 3 nights from 3 May, free cancellation until 30 Apr",
                ],
                "negative": ["Want me to look for cheaper flights?", "Searching for hotels in Kyoto…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "travel_zh": {
        "label": "出行 (中文)",
        "name": "出行",
        "description": "我的机票、火车、酒店、签证和行程",
        "view_types": ["card", "timeline", "table", "markdown"],
        "routing": {
            "purpose": "我自己的出行：机票、火车、酒店、签证和行程，以及它们的变动。",
            "include_when": [
                "机票、高铁票或酒店预订成功",
                "航班取消、火车改签、酒店退订",
                "航班延误、值机、登机口或座位",
                "签证、护照、入境要求",
                "排好的行程单、旅行计划",
                "航空里程和酒店积分",
            ],
            "exclude_when": ["寄到家里的快递", "每天上下班的通勤"],
            "examples": {
                "positive": [
                    "航班已确认：BA168 伦敦飞北京，4 月 12 日周五 16:05 起飞，座位 23A，电子客票已发送",
                    "G1234 上海虹桥→北京南 改签到明天 8:00，二等座 05 车 12F",
                    "京都酒店已订好，5 月 3 日起住 3 晚，4 月 30 日前可免费取消",
                ],
                "negative": ["要我找找更便宜的机票吗？", "正在搜索京都的酒店…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "health": {
        "label": "Health",
        "name": "Health",
        "description": "Appointments, test results, medicines, exercise and sleep",
        "view_types": ["card", "metric", "timeline", "markdown"],
        "routing": {
            "purpose": "My own health: doctor and dentist appointments, test results, medicines, exercise and "
            "sleep. 我自己的健康：看医生和牙医的预约、检查结果、用药、运动和睡眠。",
            "include_when": [
                "a doctor appointment, a dentist appointment or a clinic visit",
                "medical test results, blood tests or a health check-up report",
                "prescriptions, medicine refills and reminders to take medication",
                "exercise, running, daily step count, sleep records",
                "挂号、预约医生或牙医",
                "体检报告、化验结果",
                "处方药、买药、用药提醒",
                "运动、跑步、睡眠记录",
            ],
            "exclude_when": ["appointments for Mum or Dad", "the cat, the dog or another pet at the vet", "宠物看兽医"],
            "examples": {
                "positive": [
                    "Dentist appointment booked: Dr Lee, Tue 14 May 10:30, cleaning and check-up",
                    "体检报告出来了：血脂略高（LDL 3.6），其余正常，医生建议三个月后复查",
                    "Last week: 4 runs, 26 km in total, average sleep 6 h 50 min",
                ],
                "negative": ["Want me to find a dentist near the office?", "Your flight to Kyoto is confirmed"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "health_en": {
        "label": "Health (English)",
        "name": "Health",
        "description": "Appointments, test results, medicines, exercise and sleep",
        "view_types": ["card", "metric", "timeline", "markdown"],
        "routing": {
            "purpose": "My own health: doctor and dentist appointments, test results, medicines, exercise and sleep.",
            "include_when": [
                "a doctor appointment, a dentist appointment or a clinic visit",
                "medical test results, blood tests or a health check-up report",
                "prescriptions, medicine refills and reminders to take medication",
                "exercise, running, daily step count, sleep records",
            ],
            "exclude_when": ["appointments for Mum or Dad", "the cat, the dog or another pet at the vet"],
            "examples": {
                "positive": [
                    "Dentist appointment booked: Dr Lee, Tue 14 May 10:30, cleaning and check-up",
                    "Blood test results are in: LDL slightly high at 3.6, the rest normal; recheck in 3 months",
                    "Last week: 4 runs, 26 km in total, average sleep 6 h 50 min",
                ],
                "negative": ["Want me to find a dentist near the office?", "Your flight to Kyoto is confirmed"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "health_zh": {
        "label": "健康 (中文)",
        "name": "健康",
        "description": "看病预约、检查结果、用药、运动和睡眠",
        "view_types": ["card", "metric", "timeline", "markdown"],
        "routing": {
            "purpose": "我自己的健康：看医生和牙医的预约、检查结果、用药、运动和睡眠。",
            "include_when": [
                "挂号、预约医生或牙医",
                "体检报告、化验结果",
                "处方药、买药、用药提醒",
                "运动、跑步、睡眠记录",
            ],
            "exclude_when": ["爸妈看病", "宠物看兽医"],
            "examples": {
                "positive": [
                    "已预约牙医：李医生，5 月 14 日周二上午 10:30，洗牙加检查",
                    "体检报告出来了：血脂略高（LDL 3.6），其余正常，医生建议三个月后复查",
                    "上周跑步 4 次，共 26 公里，平均睡眠 6 小时 50 分",
                ],
                "negative": ["要我在公司附近找个牙医吗？", "去京都的机票已确认"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "home": {
        "label": "Home & bills",
        "name": "Home",
        "description": "Repairs, household bills, deliveries and cleaning",
        "view_types": ["card", "table", "checklist", "markdown"],
        "routing": {
            "purpose": "Running the home: repairs, utility and household bills, deliveries and cleaning. "
            "家里的事：维修、水电燃气等账单、快递和保洁。",
            "include_when": [
                "a repair or maintenance visit: plumber, electrician, air conditioning or appliances",
                "electricity bill, water bill, gas bill, internet bill, rent, building management fee",
                "a parcel or grocery delivery to my home",
                "cleaning schedule and cleaner visits",
                "building management notices: water cut, power cut",
                "水电燃气费、物业费、宽带、房租账单",
                "维修：水管、空调、家电、上门师傅",
                "快递、外卖、生鲜送到家，保洁阿姨、物业通知、停水停电",
            ],
            "exclude_when": ["work deliveries sent to the office", "寄到公司的工作快递"],
            "examples": {
                "positive": [
                    "Electricity bill for March: £86.40, due 15 April, direct debit set",
                    "空调维修师傅约好周六上午 9–11 点上门，检查费 80 元",
                    "Your grocery order from Ocado will arrive tomorrow 7–8 am, 23 items",
                ],
                "negative": ["Shall I book the plumber?", "Your flight to Kyoto is confirmed"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
    "home_en": {
        "label": "Home & bills (English)",
        "name": "Home",
        "description": "Repairs, household bills, deliveries and cleaning",
        "view_types": ["card", "table", "checklist", "markdown"],
        "routing": {
            "purpose": "Running the home: repairs, utility and household bills, deliveries and cleaning.",
            "include_when": [
                "a repair or maintenance visit: plumber, electrician, air conditioning or appliances",
                "electricity bill, water bill, gas bill, internet bill, rent, building management fee",
                "a parcel or grocery delivery to my home",
                "cleaning schedule and cleaner visits",
                "building management notices: water cut, power cut",
            ],
            "exclude_when": ["work deliveries sent to the office"],
            "examples": {
                "positive": [
                    "Electricity bill for March: £86.40, due 15 April, direct debit set",
                    "Air conditioning repair: technician booked for Saturday 9-11 am, call-out fee £60",
                    "Your grocery order from Ocado will arrive tomorrow 7–8 am, 23 items",
                ],
                "negative": ["Shall I book the plumber?", "Your flight to Kyoto is confirmed"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
    "home_zh": {
        "label": "家务与账单 (中文)",
        "name": "家里",
        "description": "维修、家庭账单、快递和保洁",
        "view_types": ["card", "table", "checklist", "markdown"],
        "routing": {
            "purpose": "家里的事：维修、水电燃气等账单、快递和保洁。",
            "include_when": [
                "维修：水管、空调、家电、上门师傅",
                "水电燃气费、物业费、宽带、房租账单",
                "快递、外卖、生鲜送到家",
                "保洁阿姨的安排",
                "物业通知、停水停电",
            ],
            "exclude_when": ["寄到公司的工作快递"],
            "examples": {
                "positive": [
                    "3 月电费 286 元，4 月 15 日前缴清，已设置自动扣款",
                    "空调维修师傅约好周六上午 9–11 点上门，检查费 80 元",
                    "盒马订单明早 7–8 点送到家，共 23 件",
                ],
                "negative": ["要我约水管工吗？", "去京都的机票已确认"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
    "family": {
        "label": "Family & events",
        "name": "Family",
        "description": "The kids' school, my parents, birthdays and family gatherings",
        "view_types": ["card", "timeline", "checklist", "markdown"],
        "routing": {
            "purpose": "Family matters: the kids' school, my parents, birthdays, anniversaries and family "
            "gatherings. 家人的事：孩子上学、父母、生日纪念日和家庭聚会。",
            "include_when": [
                "school notices, parent-teacher meetings and school fees for my kids",
                "my kids' homework, tuition and after-school classes",
                "my parents' doctor visits, paperwork and money sent to them",
                "birthdays, anniversaries and gifts for family members",
                "family dinners, family gatherings and video calls with family",
                "孩子学校的通知、家长会、学费",
                "孩子的作业：数学练习、拼写、手工",
                "爸妈看病、证件和汇款",
                "家人的生日、纪念日和礼物",
                "家庭聚餐、聚会和视频通话",
            ],
            "exclude_when": [
                "birthdays of colleagues and team lunches at work",
                "weddings of clients and other work social events",
                "同事的生日",
                "客户的婚礼等工作应酬",
            ],
            "examples": {
                "positive": [
                    "Parent-teacher meeting at Mia's school next Wednesday 6 pm, added to your calendar",
                    "给爸妈的 2000 加元汇款已到账，妈妈说下周去复查",
                    "Mum's 70th birthday dinner booked: Sat 18 May, 7 pm, table for 8 at Golden Dragon",
                    "Mia's homework for Friday: a poster about volcanoes",
                ],
                "negative": ["Cake for Tom's birthday at the office is ordered", "Shall I call your mother?"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "family_en": {
        "label": "Family & events (English)",
        "name": "Family",
        "description": "The kids' school, my parents, birthdays and family gatherings",
        "view_types": ["card", "timeline", "checklist", "markdown"],
        "routing": {
            "purpose": "Family matters: the kids' school, my parents, birthdays, anniversaries and family gatherings.",
            "include_when": [
                "school notices, parent-teacher meetings and school fees for my kids",
                "my kids' homework, tuition and after-school classes",
                "my parents' doctor visits, paperwork and money sent to them",
                "birthdays, anniversaries and gifts for family members",
                "family dinners, family gatherings and video calls with family",
            ],
            "exclude_when": [
                "birthdays of colleagues and team lunches at work",
                "weddings of clients and other work social events",
            ],
            "examples": {
                "positive": [
                    "Parent-teacher meeting at Mia's school next Wednesday 6 pm, added to your calendar",
                    "The CAD 2,000 transfer to Mum and Dad has arrived; Mum has her check-up next week",
                    "Mum's 70th birthday dinner booked: Sat 18 May, 7 pm, table for 8 at Golden Dragon",
                    "Mia's homework for Friday: a poster about volcanoes",
                ],
                "negative": ["Cake for Tom's birthday at the office is ordered", "Shall I call your mother?"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "family_zh": {
        "label": "家人与活动 (中文)",
        "name": "家人",
        "description": "孩子上学、父母、生日和家庭聚会",
        "view_types": ["card", "timeline", "checklist", "markdown"],
        "routing": {
            "purpose": "家人的事：孩子上学、父母、生日纪念日和家庭聚会。",
            "include_when": [
                "孩子学校的通知、家长会、学费",
                "孩子的作业：数学练习、拼写、手工",
                "爸妈看病、证件和汇款",
                "家人的生日、纪念日和礼物",
                "家庭聚餐、聚会和视频通话",
            ],
            "exclude_when": ["同事的生日", "客户的婚礼等工作应酬"],
            "examples": {
                "positive": [
                    "朵朵学校下周三晚 6 点开家长会，已加到日历",
                    "给爸妈的 2000 加元汇款已到账，妈妈说下周去复查",
                    "妈妈 70 岁生日宴已订好：5 月 18 日周六晚 7 点，金龙酒家 8 人桌",
                    "朵朵周五的作业：做一张火山海报",
                    "学校发来下学期的学费账单：1.2 万元，1 月 10 日前交",
                ],
                "negative": ["同事小王的生日蛋糕已订好", "要我给你妈妈打个电话吗？"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "learning": {
        "label": "Learning",
        "name": "Learning",
        "description": "Courses, language study, books, exams and certificates",
        "view_types": ["markdown", "checklist", "card", "metric"],
        "routing": {
            "purpose": "My own studying: online courses, language study, books I read, exams and certificates. "
            "我自己的学习：在线课程、外语、读书、考试和证书。",
            "include_when": [
                "an online course: lessons finished, quizzes and assignments",
                "language study: vocabulary, streaks and tutor sessions",
                "books I read: chapters finished and reading notes",
                "exam registration, exam score, exam result, certificate",
                "在线课程的课时、测验和课程作业",
                "外语学习：单词、口语课、打卡",
                "读书：读完的章节和读书笔记",
                "考试报名、成绩和证书",
            ],
            "exclude_when": ["my kids' homework or school reports", "孩子的作业和学校的事"],
            "examples": {
                "positive": [
                    "Coursera 'Machine Learning' week 3 done: quiz 9/10, next assignment due Sunday",
                    "日语学习连续打卡 45 天，本周背了 120 个单词，周四口语课已约好",
                    "IELTS registered for 8 June in London, fee £195 paid; mock test score 7.0",
                ],
                "negative": ["Mia's homework for Friday: a poster about volcanoes", "Want me to find a Spanish tutor?"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
    "learning_en": {
        "label": "Learning (English)",
        "name": "Learning",
        "description": "Courses, language study, books, exams and certificates",
        "view_types": ["markdown", "checklist", "card", "metric"],
        "routing": {
            "purpose": "My own studying: online courses, language study, books I read, exams and certificates.",
            "include_when": [
                "an online course: lessons finished, quizzes and assignments",
                "language study: vocabulary, streaks and tutor sessions",
                "books I read: chapters finished and reading notes",
                "exam registration, exam score, exam result, certificate",
            ],
            "exclude_when": ["my kids' homework or school reports"],
            "examples": {
                "positive": [
                    "Coursera 'Machine Learning' week 3 done: quiz 9/10, next assignment due Sunday",
                    "Japanese: 45-day streak, 120 new words this week, Thursday's speaking lesson booked",
                    "IELTS registered for 8 June in London, fee £195 paid; mock test score 7.0",
                ],
                "negative": ["Mia's homework for Friday: a poster about volcanoes", "Want me to find a Spanish tutor?"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
    "learning_zh": {
        "label": "学习 (中文)",
        "name": "学习",
        "description": "课程、外语、读书、考试和证书",
        "view_types": ["markdown", "checklist", "card", "metric"],
        "routing": {
            "purpose": "我自己的学习：在线课程、外语、读书、考试和证书。",
            "include_when": [
                "在线课程的课时、测验和课程作业",
                "外语学习：单词、口语课、打卡",
                "读书：读完的章节和读书笔记",
                "考试报名、成绩和证书",
            ],
            "exclude_when": ["孩子的作业和学校的事"],
            "examples": {
                "positive": [
                    "Coursera《机器学习》第 3 周学完，测验 9/10，下一个作业周日截止",
                    "日语学习连续打卡 45 天，本周背了 120 个单词，周四口语课已约好",
                    "雅思已报名 6 月 8 日伦敦考场，报名费 195 英镑已付，模考 7.0 分",
                ],
                "negative": ["朵朵周五的作业：做一张火山海报", "要我帮你找个西班牙语老师吗？"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
}
