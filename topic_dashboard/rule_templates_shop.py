"""The shop family of rule templates: a small online shop's orders, refunds, reviews, stock and marketing.

Written for an owner whose bot watches the store, the marketplaces, the couriers and the ad accounts and
reports back; each subject comes three ways like the others (rule_templates.py explains how, and how
the wording meets the router).
"""

from __future__ import annotations

from typing import Any

SHOP_TEMPLATE_KEYS = ("orders", "refunds", "reviews", "inventory", "marketing")

SHOP_TEMPLATES: dict[str, dict[str, Any]] = {
    "orders": {
        "label": "Orders & shipping",
        "name": "Orders",
        "description": "New orders, shipments, deliveries and parcels in trouble",
        "view_types": ["table", "card", "metric", "markdown"],
        "routing": {
            "purpose": "New orders and getting every parcel to the customer, so nothing waits to ship and no "
            "delivery problem goes unseen. 新订单和发货签收，不让订单积压、不漏掉物流问题。",
            "include_when": [
                "a new paid order, a large order or a wholesale order confirmed",
                "a buyer paid for a new order on our store or a marketplace",
                "an order shipped or handed to the courier",
                "a parcel delivered to the customer, signed for by the buyer",
                "a parcel delayed, stuck in customs, lost in transit or sent back by the courier",
                "a wrong shipping address or a failed delivery attempt",
                "the daily order count and the orders still waiting to ship",
                "买家下单并付款、大额订单或批发订单已确认",
                "订单已交给快递发出，包裹已签收",
                "包裹延误、运输途中丢失、海关扣留或地址错误导致派送失败",
                "快递员多次上门都没人在家，包裹退回寄件人",
            ],
            "exclude_when": [
                "refund requests, return requests or exchange requests",
                "restocks or purchase orders from our suppliers",
                "退款申请、退货申请或换货申请",
            ],
            "examples": {
                "positive": [
                    "New order #4127 from Toronto: $612, paid with Shop Pay, 3 items ready to pack",
                    "今天 38 个订单已全部发货，顺丰已揽收，还有 2 单等客户确认地址",
                    "Parcel for order #4093 stuck in customs in Germany for 5 days; DHL asks for the invoice",
                ],
                "negative": [
                    "Refund of $48 for order #4090 approved",
                    "Checking today's orders now…",
                    "Want me to email the customer about the delay?",
                ],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "orders_en": {
        "label": "Orders & shipping (English)",
        "name": "Orders",
        "description": "New orders, shipments, deliveries and parcels in trouble",
        "view_types": ["table", "card", "metric", "markdown"],
        "routing": {
            "purpose": "New orders and getting every parcel to the customer, so nothing waits to ship and no "
            "delivery problem goes unseen.",
            "include_when": [
                "a new paid order, a large order or a wholesale order confirmed",
                "a buyer paid for a new order on our store or a marketplace",
                "an order shipped or handed to the courier",
                "a parcel delivered to the customer, signed for by the buyer",
                "a parcel delayed, stuck in customs, lost in transit or sent back by the courier",
                "a wrong shipping address or a failed delivery attempt",
                "the daily order count and the orders still waiting to ship",
            ],
            "exclude_when": [
                "refund requests, return requests or exchange requests",
                "restocks or purchase orders from our suppliers",
            ],
            "examples": {
                "positive": [
                    "New order #4127 from Toronto: $612, paid with Shop Pay, 3 items ready to pack",
                    "All 38 orders from today shipped; UPS picked them up at 5 pm, 2 still wait for an address",
                    "Parcel for order #4093 stuck in customs in Germany for 5 days; DHL asks for the invoice",
                ],
                "negative": [
                    "Refund of $48 for order #4090 approved",
                    "Checking today's orders now…",
                    "Want me to email the customer about the delay?",
                ],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "orders_zh": {
        "label": "订单与物流 (中文)",
        "name": "订单与物流",
        "description": "新订单、发货、签收和物流异常",
        "view_types": ["table", "card", "metric", "markdown"],
        "routing": {
            "purpose": "新订单和发货签收，不让订单积压、不漏掉物流问题。",
            "include_when": [
                "买家下单并付款、大额订单或批发订单已确认",
                "订单已交给快递发出，包裹已签收",
                "包裹延误、运输途中丢失或海关扣留",
                "收货地址错误、派送失败",
                "快递员多次上门都没人在家，包裹退回寄件人",
                "每日订单量和待发货的订单",
            ],
            "exclude_when": ["退款申请、退货申请或换货申请", "向供应商下采购单补货"],
            "examples": {
                "positive": [
                    "新订单 #4127：多伦多客户，612 美元，已付款，3 件商品待打包",
                    "今天 38 个订单已全部发货，顺丰已揽收，还有 2 单等客户确认地址",
                    "订单 #4093 的包裹在德国海关扣留 5 天，DHL 要求补交发票",
                    "订单 #4102 的包裹派送三次都没人签收，已退回我们仓库",
                ],
                "negative": ["订单 #4090 的 48 美元退款已同意", "正在查看今天的订单…", "要我给客户发邮件说明延误吗？"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "refunds": {
        "label": "Refunds & returns",
        "name": "Refunds",
        "description": "Refund, return and exchange requests, their outcome, and payment disputes",
        "view_types": ["table", "card", "checklist", "markdown"],
        "routing": {
            "purpose": "Every refund, return and exchange from request to outcome, and payment disputes, so no "
            "customer waits for their money. 退款、退货、换货从申请到结果，以及支付争议，不让客户等钱。",
            "include_when": [
                "a customer asks for a refund",
                "a customer asks to return or exchange an item, swapping it for a different size",
                "an exchange order created for a different size",
                "refund approved, refund declined, money paid back to the customer",
                "a returned item inspected at the warehouse",
                "a payment dispute, a chargeback or a PayPal claim",
                "退款申请、退货申请、换货申请",
                "客户要求换尺码或换颜色的换货",
                "退款已同意、退款被拒绝、退款已到账",
                "支付争议、拒付或平台介入的结果",
            ],
            "exclude_when": [
                "faulty stock we send back to a supplier",
                "a review that only rates the product",
                "我们退回给供应商的库存",
            ],
            "examples": {
                "positive": [
                    "Customer on order #4090 wants a refund: the mug arrived cracked, photo attached",
                    "退货已入库：订单 #3981 的亚麻围裙已检查无损，退款 35 美元已退回原支付方式",
                    "PayPal dispute on order #3877 closed in our favour; the $129 hold is released",
                ],
                "negative": ["New order #4127 paid, ready to pack", "Looking into the refund request now…"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "refunds_en": {
        "label": "Refunds & returns (English)",
        "name": "Refunds",
        "description": "Refund, return and exchange requests, their outcome, and payment disputes",
        "view_types": ["table", "card", "checklist", "markdown"],
        "routing": {
            "purpose": "Every refund, return and exchange from request to outcome, and payment disputes, so no "
            "customer waits for their money.",
            "include_when": [
                "a customer asks for a refund",
                "a customer asks to return or exchange an item, swapping it for a different size",
                "an exchange order created for a different size",
                "refund approved, refund declined, money paid back to the customer",
                "a returned item inspected at the warehouse",
                "a payment dispute, a chargeback or a PayPal claim",
            ],
            "exclude_when": ["faulty stock we send back to a supplier", "a review that only rates the product"],
            "examples": {
                "positive": [
                    "Customer on order #4090 wants a refund: the mug arrived cracked, photo attached",
                    "Return received for order #3981: linen apron checked, undamaged; $35 refunded to the card",
                    "PayPal dispute on order #3877 closed in our favour; the $129 hold is released",
                ],
                "negative": ["New order #4127 paid, ready to pack", "Looking into the refund request now…"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "refunds_zh": {
        "label": "退款与退换货 (中文)",
        "name": "退款售后",
        "description": "退款、退货、换货申请及结果，支付争议",
        "view_types": ["table", "card", "checklist", "markdown"],
        "routing": {
            "purpose": "退款、退货、换货从申请到结果，以及支付争议，不让客户等钱。",
            "include_when": [
                "客户申请退款、退货或换货",
                "客户投诉商品破损并申请退款",
                "客户要求换尺码或换颜色的换货",
                "退款已同意、退款被拒绝、退款已到账",
                "到货破损的商品，钱已退还给客户",
                "退货已到仓库，验货完好，准备退款",
                "支付争议、拒付或平台介入的结果",
            ],
            "exclude_when": ["我们退回给供应商的库存", "只给商品打分的评价"],
            "examples": {
                "positive": [
                    "订单 #4090 的客户申请退款：杯子到货就裂了，附了照片",
                    "退货已入库：订单 #3981 的亚麻围裙已检查无损，退款 35 美元已退回原支付方式",
                    "订单 #3877 的 PayPal 争议已判我们胜诉，冻结的 129 美元已释放",
                ],
                "negative": ["新订单 #4127 已付款，待打包", "正在处理这条退款申请…"],
            },
            "priority": 70,
            "fallback_topic_key": "inbox",
        },
    },
    "reviews": {
        "label": "Customer reviews & feedback",
        "name": "Reviews",
        "description": "Reviews, ratings, complaints, praise and survey results",
        "view_types": ["card", "markdown", "table"],
        "routing": {
            "purpose": "What customers say about us: new reviews and ratings, complaints and praise, survey "
            "results. 客户怎么评价我们：新评价和评分、投诉和好评、问卷结果。",
            "include_when": [
                "a new customer review or a star rating from a buyer",
                "a bad review or a customer complaint about product quality",
                "a complaint about damaged packaging or rude service",
                "praise, a thank-you note or photos shared by a happy customer",
                "survey, NPS or customer satisfaction results",
                "the questions customers asked most this week",
                "新评价、评分、投诉或负面评价",
                "好评、晒图、感谢留言",
                "问卷、满意度或 NPS 结果",
            ],
            "exclude_when": [
                "a complaint that comes with a refund request",
                "influencer posts we paid for",
                "附带退款申请的投诉",
            ],
            "examples": {
                "positive": [
                    "New 1-star review on Etsy: 'Glaze chipped after two washes', buyer in Leeds",
                    "本周新增 12 条五星好评，有 5 条提到包装很用心",
                    "March NPS survey: 61 (up from 54), 212 responses; slow shipping is the top complaint",
                ],
                "negative": ["Refund approved for the chipped mug on order #4090", "Want me to reply to the review?"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "reviews_en": {
        "label": "Customer reviews & feedback (English)",
        "name": "Reviews",
        "description": "Reviews, ratings, complaints, praise and survey results",
        "view_types": ["card", "markdown", "table"],
        "routing": {
            "purpose": "What customers say about us: new reviews and ratings, complaints and praise, survey results.",
            "include_when": [
                "a new customer review or a star rating from a buyer",
                "a bad review or a customer complaint about product quality",
                "a complaint about damaged packaging or rude service",
                "praise, a thank-you note or photos shared by a happy customer",
                "survey, NPS or customer satisfaction results",
                "the questions customers asked most this week",
            ],
            "exclude_when": ["a complaint that comes with a refund request", "influencer posts we paid for"],
            "examples": {
                "positive": [
                    "New 1-star review on Etsy: 'Glaze chipped after two washes', buyer in Leeds",
                    "12 new 5-star reviews this week, 5 of them mention the careful packaging",
                    "March NPS survey: 61 (up from 54), 212 responses; slow shipping is the top complaint",
                ],
                "negative": ["Refund approved for the chipped mug on order #4090", "Want me to reply to the review?"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "reviews_zh": {
        "label": "客户评价与反馈 (中文)",
        "name": "客户评价",
        "description": "评价、评分、投诉、好评和问卷结果",
        "view_types": ["card", "markdown", "table"],
        "routing": {
            "purpose": "客户怎么评价我们：新评价和评分、投诉和好评、问卷结果。",
            "include_when": [
                "顾客在店铺留下的新评价、评分或追加评价",
                "顾客对商品质量的投诉、负面评价",
                "对包装破损或服务态度的投诉",
                "好评、晒图、感谢留言",
                "问卷、满意度或 NPS 结果",
                "本周客户问得最多的问题",
            ],
            "exclude_when": ["附带退款申请的投诉", "我们付费请博主发的推广"],
            "examples": {
                "positive": [
                    "Etsy 新增一条 1 星评价：“洗了两次釉面就掉了”，买家在利兹",
                    "本周新增 12 条五星好评，有 5 条提到包装很用心",
                    "3 月 NPS 问卷结果 61 分（上月 54），212 人回复，发货慢是最多的抱怨",
                ],
                "negative": ["订单 #4090 的裂杯退款已同意", "要我回复这条评价吗？"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "inventory": {
        "label": "Inventory & stock",
        "name": "Inventory",
        "description": "Low stock, restocks, supplier deliveries and stock counts",
        "view_types": ["table", "metric", "checklist", "card"],
        "routing": {
            "purpose": "Stock and supply: what is running low, what is on its way from suppliers and what the "
            "warehouse counted. 库存与供货：哪些快卖完、哪些在从供应商发来的路上、仓库盘点的结果。",
            "include_when": [
                "a product low on stock, sold out or back in stock",
                "a restock or purchase order placed with a supplier",
                "supplier delivery arrived at the warehouse, supplier delivery delayed, fewer units than ordered",
                "a warehouse stock count, damaged stock written off",
                "a stock count that differs from the system",
                "库存不足、缺货、售罄或已补货",
                "向供应商下采购单补货",
                "供应商到货、供应商延期发货或少发",
                "仓库盘点、破损商品报废",
                "盘点后实际数量与系统库存有差异",
            ],
            "exclude_when": ["parcels shipped out to customers", "发给客户的包裹"],
            "examples": {
                "positive": [
                    "Low stock: Kiln Glaze Mug (SKU MUG-KG-12) down to 9 units, about 4 days of sales left",
                    "已向景德镇供应商下采购单：白瓷杯 600 个，预计 3 月 18 日到仓",
                    "Stock count done: 14 bamboo trays damaged, written off; counts now match Shopify",
                ],
                "negative": ["Order #4127 shipped with UPS", "Counting the warehouse shelves now…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "inventory_en": {
        "label": "Inventory & stock (English)",
        "name": "Inventory",
        "description": "Low stock, restocks, supplier deliveries and stock counts",
        "view_types": ["table", "metric", "checklist", "card"],
        "routing": {
            "purpose": "Stock and supply: what is running low, what is on its way from suppliers and what the "
            "warehouse counted.",
            "include_when": [
                "a product low on stock, sold out or back in stock",
                "a restock or purchase order placed with a supplier",
                "supplier delivery arrived at the warehouse, supplier delivery delayed, fewer units than ordered",
                "a warehouse stock count, damaged stock written off",
                "a stock count that differs from the system",
            ],
            "exclude_when": ["parcels shipped out to customers"],
            "examples": {
                "positive": [
                    "Low stock: Kiln Glaze Mug (SKU MUG-KG-12) down to 9 units, about 4 days of sales left",
                    "Purchase order sent to the Jingdezhen supplier: 600 white porcelain cups, due March 18",
                    "Stock count done: 14 bamboo trays damaged, written off; counts now match Shopify",
                ],
                "negative": ["Order #4127 shipped with UPS", "Counting the warehouse shelves now…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "inventory_zh": {
        "label": "库存与补货 (中文)",
        "name": "库存",
        "description": "库存不足、补货、供应商到货和盘点",
        "view_types": ["table", "metric", "checklist", "card"],
        "routing": {
            "purpose": "库存与供货：哪些快卖完、哪些在从供应商发来的路上、仓库盘点的结果。",
            "include_when": [
                "商品库存不足、缺货、售罄或已补货",
                "某个商品卖完了，各个渠道都售罄",
                "向供应商下采购单补货",
                "供应商到货、供应商延期发货或少发",
                "仓库盘点、破损商品报废",
                "盘点后实际数量与系统库存有差异",
            ],
            "exclude_when": ["发给客户的包裹"],
            "examples": {
                "positive": [
                    "库存预警：窑变釉马克杯（MUG-KG-12）只剩 9 个，按现在的销量约够 4 天",
                    "已向景德镇供应商下采购单：白瓷杯 600 个，预计 3 月 18 日到仓",
                    "盘点完成：14 个竹托盘破损已报废，库存数与后台一致",
                ],
                "negative": ["订单 #4127 已交给顺丰发出", "正在盘点仓库货架…"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "marketing": {
        "label": "Marketing & promotions",
        "name": "Marketing",
        "description": "Campaigns, ads, discounts and influencer work, and how they did",
        "view_types": ["metric", "table", "card", "markdown"],
        "routing": {
            "purpose": "Campaigns, ads, discounts and influencer work, and what each brought in. "
            "营销活动、广告投放、优惠和达人合作，以及各自带来的效果。",
            "include_when": [
                "ad spend, ROAS, ad clicks, ad conversions",
                "Meta ads, Google Ads, TikTok ads",
                "a seasonal sale, a discount code, a coupon or a promotion",
                "email newsletter campaign open rate and click rate",
                "an influencer or KOL post and the sales it drove",
                "social media followers and post engagement",
                "广告投放花费、ROI、点击率和转化率",
                "促销活动、优惠券、折扣活动的效果",
                "博主、KOL 合作和种草笔记的数据，粉丝增长",
            ],
            "exclude_when": ["customer reviews of our products", "顾客对商品的评价"],
            "examples": {
                "positive": [
                    "Spring sale week 1: Meta ads spent $840 at ROAS 3.2; code SPRING15 used 96 times",
                    "小红书博主合作笔记发布 3 天，阅读 4.2 万，带来 57 单",
                    "Newsletter 'New pour-over sets' sent to 8,400 subscribers: 41% open rate, 3.8% click rate",
                ],
                "negative": ["New 5-star review mentions the gift box", "Drafting the ad copy now…"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
    "marketing_en": {
        "label": "Marketing & promotions (English)",
        "name": "Marketing",
        "description": "Campaigns, ads, discounts and influencer work, and how they did",
        "view_types": ["metric", "table", "card", "markdown"],
        "routing": {
            "purpose": "Campaigns, ads, discounts and influencer work, and what each brought in.",
            "include_when": [
                "ad spend, ROAS, ad clicks, ad conversions",
                "Meta ads, Google Ads, TikTok ads",
                "a seasonal sale, a discount code, a coupon or a promotion",
                "email newsletter campaign open rate and click rate",
                "an influencer or KOL post and the sales it drove",
                "social media followers and post engagement",
            ],
            "exclude_when": ["customer reviews of our products"],
            "examples": {
                "positive": [
                    "Spring sale week 1: Meta ads spent $840 at ROAS 3.2; code SPRING15 used 96 times",
                    "Influencer post by @slowcoffee went live 3 days ago: 42k views, 57 orders with her code",
                    "Newsletter 'New pour-over sets' sent to 8,400 subscribers: 41% open rate, 3.8% click rate",
                ],
                "negative": ["New 5-star review mentions the gift box", "Drafting the ad copy now…"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
    "marketing_zh": {
        "label": "营销与推广 (中文)",
        "name": "营销推广",
        "description": "营销活动、广告、优惠和达人合作的效果",
        "view_types": ["metric", "table", "card", "markdown"],
        "routing": {
            "purpose": "营销活动、广告投放、优惠和达人合作，以及各自带来的效果。",
            "include_when": [
                "广告投放花费、ROI、点击率和转化率",
                "促销活动、优惠券、折扣活动的效果",
                "折扣码或优惠码被使用的次数及带来的销售额",
                "黑色星期五等大促活动的效果",
                "邮件营销的打开率和点击率",
                "博主、KOL 合作和种草笔记的数据",
                "社交媒体粉丝增长和互动数据",
            ],
            "exclude_when": ["顾客对商品的评价"],
            "examples": {
                "positive": [
                    "春季促销第一周：Meta 广告花费 840 美元，ROI 3.2，优惠码 SPRING15 用了 96 次",
                    "小红书博主合作笔记发布 3 天，阅读 4.2 万，带来 57 单",
                    "“手冲新品”邮件发给 8400 位订阅者，打开率 41%，点击率 3.8%",
                    "双十一折扣码 DOUBLE11 已结束：共 180 单使用，带来销售额 8.6 万元",
                ],
                "negative": ["新增一条五星好评，提到了礼盒", "正在写广告文案…"],
            },
            "priority": 50,
            "fallback_topic_key": "inbox",
        },
    },
}
