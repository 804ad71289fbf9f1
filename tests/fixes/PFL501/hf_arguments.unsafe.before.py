from transformers import Trainer, TrainingArguments

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=8,
    dataloader_num_workers=4,
    gradient_checkpointing=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()
