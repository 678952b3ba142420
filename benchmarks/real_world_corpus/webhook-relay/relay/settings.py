from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    kafka_brokers: str = "localhost:9092"
    group_id: str = "webhook-relay"
    topics: list[str] = ["webhooks.outbound"]
    max_in_flight: int = 100
    request_timeout_s: float = 10.0

    class Config:
        env_prefix = "RELAY_"


settings = Settings()
